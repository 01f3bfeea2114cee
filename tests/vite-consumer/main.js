// A user of the published package, bundled by Vite: `import { init } from 'simdgrad'` resolves to
// node_modules/simdgrad, and the .wasm next to the glue becomes a Vite asset. Trains a linear
// model on y = 2x − 1 and writes what it learned into the page, where the test reads it.
// ?threads=N: the threaded build (init({ threads: N }); the page must be cross-origin isolated).
import { init } from 'simdgrad';

async function main() {
  const threads = Number(new URLSearchParams(location.search).get('threads') ?? '1');
  const sg = await init(threads > 1 ? { threads } : undefined);
  sg.manualSeed(0);
  const x = sg.linspace(-1, 1, 32).reshape(32, 1);
  const y = x.mul(2).sub(1);
  const model = new sg.nn.Linear(1, 1);
  const opt = new sg.optim.SGD(model.parameters(), { lr: 0.1 });
  const lossOf = () => sg.tidy(() => sg.F.mseLoss(model.forward(x), y).item());
  const firstLoss = lossOf();
  for (let step = 0; step < 300; step++) {
    sg.tidy(() => {
      opt.zeroGrad();
      sg.F.mseLoss(model.forward(x), y).backward();
      opt.step();
    });
  }
  return {
    version: sg.version,
    features: sg.features(),
    firstLoss,
    lastLoss: lossOf(),
    weight: model.weight.item(),
    bias: model.bias.item(),
  };
}

const out = document.getElementById('result');
main().then(
  (r) => {
    out.textContent = JSON.stringify(r);
    out.dataset.status = 'done';
  },
  (e) => {
    out.textContent = String(e?.stack ?? e);
    out.dataset.status = 'error';
    console.error(e);
  },
);

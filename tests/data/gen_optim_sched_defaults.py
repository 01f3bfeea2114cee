#!/usr/bin/python3
"""Generates tests/data/optim_sched_defaults_ref.json: what PyTorch 1.13's torch.optim and
torch.optim.lr_scheduler do when options are left at their defaults, for
tests/js/optim_defaults.test.mjs and tests/js/lr_scheduler_defaults.test.mjs.
Run with Debian's PyTorch: /usr/bin/python3 tests/data/gen_optim_sched_defaults.py

'optim': every optimizer but SGD (whose lr is required) made with no options over one float64
parameter p = [1, -2, 3]; its defaults (torch's names in camelCase, without torch's
foreach/fused/differentiable/capturable switches) and p after each of 3 steps on
f(p) = sum([1, 2, 3]·p²) + sum(p). LBFGS: one step(closure) on f from the same p, and
'lbfgsWolfe': Rosenbrock's function from (-1.5, 2) with lr 0.1 and the strong-Wolfe line search
(its first steps are too short: the search extrapolates, and its cubic interpolation falls back
to bisection), 3 steps.
'sched': the lr (and momentum) of an SGD (lr 0.1, momentum 0.9) group before and after each
step of a scheduler made with only its required arguments; the custom CyclicLR scale functions;
SequentialLR runs whose later scheduler is restarted by step(0) (the closed forms); a
CosineAnnealingLR resumed at last_epoch 3; CosineAnnealingWarmRestarts.step(epoch).
"""
import json
import warnings
from pathlib import Path

import torch

warnings.filterwarnings('ignore')
torch.set_default_dtype(torch.float64)
S = torch.optim.lr_scheduler
A = torch.tensor([1.0, 2.0, 3.0])


def camel(s):
    head, *tail = s.split('_')
    return head + ''.join(w.title() for w in tail)


def f(p):
    return (A * p * p).sum() + p.sum()


def rosen(p):
    return (1 - p[0]) ** 2 + 100 * (p[1] - p[0] ** 2) ** 2


def optimizers():
    out = {}
    for name in ['Adam', 'AdamW', 'RMSprop', 'Adagrad', 'Adadelta', 'Adamax', 'NAdam', 'RAdam']:
        p = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
        opt = getattr(torch.optim, name)([p])
        traj = []
        for _ in range(3):
            opt.zero_grad()
            f(p).backward()
            opt.step()
            traj.append(p.detach().tolist())
        d = {camel(k): (list(v) if isinstance(v, tuple) else v) for k, v in opt.defaults.items()
             if k not in ('foreach', 'fused', 'differentiable', 'capturable')}
        out[name] = {'defaults': d, 'traj': traj}
    for key, fn, x0, options, steps in [('LBFGS', f, [1.0, -2.0, 3.0], {}, 1),
                                        ('lbfgsWolfe', rosen, [-1.5, 2.0], {'lr': 0.1, 'line_search_fn': 'strong_wolfe'}, 3)]:
        p = torch.tensor(x0, requires_grad=True)
        opt = torch.optim.LBFGS([p], **options)

        def closure():
            opt.zero_grad()
            loss = fn(p)
            loss.backward()
            return loss
        rec = []
        for _ in range(steps):
            first = opt.step(closure).item()
            st = opt.state[opt._params[0]]
            rec.append({'loss': first, 'params': p.detach().tolist(), 'funcEvals': st['func_evals'], 'nIter': st['n_iter']})
        out[key] = {'steps': rec, 'defaults': {camel(k): v for k, v in opt.defaults.items()}}
    return out


def run(make, n=12, momentum=False, pre=None, metric=None):
    p = torch.zeros(2, requires_grad=True)
    opt = torch.optim.SGD([p], lr=0.1, momentum=0.9)
    if pre:
        pre(opt)
    s = make(opt)
    lrs, ms = [opt.param_groups[0]['lr']], [opt.param_groups[0]['momentum']]
    for _ in range(n):
        opt.step()
        s.step() if metric is None else s.step(metric)
        lrs.append(opt.param_groups[0]['lr'])
        ms.append(opt.param_groups[0]['momentum'])
    return {'lrs': lrs, 'momentum': ms} if momentum else {'lrs': lrs}


def schedulers():
    out = {
        'StepLR': run(lambda o: S.StepLR(o, 2)),
        'MultiStepLR': run(lambda o: S.MultiStepLR(o, [2, 4])),
        'CosineAnnealingLR': run(lambda o: S.CosineAnnealingLR(o, 4)),
        'LinearLR': run(lambda o: S.LinearLR(o)),
        'ConstantLR': run(lambda o: S.ConstantLR(o)),
        'PolynomialLR': run(lambda o: S.PolynomialLR(o)),
        'CosineAnnealingWarmRestarts': run(lambda o: S.CosineAnnealingWarmRestarts(o, 3)),
        'CyclicLR': run(lambda o: S.CyclicLR(o, 0.01, 0.1), momentum=True),
        'OneCycleLR': run(lambda o: S.OneCycleLR(o, 0.1, total_steps=12), n=11, momentum=True),
        'ReduceLROnPlateau': run(lambda o: S.ReduceLROnPlateau(o), n=30, metric=1.0),
        'CyclicLR_scaleFn_cycle': run(lambda o: S.CyclicLR(o, 0.01, 0.1, step_size_up=2, scale_fn=lambda x: 0.5 ** x)),
        'CyclicLR_scaleFn_iterations': run(lambda o: S.CyclicLR(o, 0.01, 0.1, step_size_up=2, scale_fn=lambda x: 1 / (1 + x), scale_mode='iterations')),
        'Seq_Constant_MultiStep': run(lambda o: S.SequentialLR(o, [S.ConstantLR(o, factor=0.5, total_iters=2), S.MultiStepLR(o, [0, 0, 2], gamma=0.5)], [3]), n=8),
        'Seq_Exp_Linear': run(lambda o: S.SequentialLR(o, [S.ExponentialLR(o, 0.9), S.LinearLR(o, start_factor=0.5, total_iters=4)], [2]), n=8),
        'Seq_Exp_Constant': run(lambda o: S.SequentialLR(o, [S.ExponentialLR(o, 0.9), S.ConstantLR(o, factor=0.25, total_iters=3)], [2]), n=8),
        'Seq_Exp_Constant0': run(lambda o: S.SequentialLR(o, [S.ExponentialLR(o, 0.9), S.ConstantLR(o, factor=0.25, total_iters=0)], [2]), n=6),
        'Seq_Linear_Exp': run(lambda o: S.SequentialLR(o, [S.LinearLR(o, total_iters=2), S.ExponentialLR(o, 0.5)], [3]), n=8),
        'Seq_Const_Cosine': run(lambda o: S.SequentialLR(o, [S.ConstantLR(o, factor=0.5, total_iters=1), S.CosineAnnealingLR(o, 3, eta_min=0.01)], [2]), n=8),
    }

    def resume(o):
        o.param_groups[0]['initial_lr'] = 0.2
    out['Cosine_resume'] = run(lambda o: S.CosineAnnealingLR(o, 5, last_epoch=3), n=6, pre=resume)
    p = torch.zeros(2, requires_grad=True)
    o = torch.optim.SGD([p], lr=0.1)
    s = S.CosineAnnealingWarmRestarts(o, 3, eta_min=0.01)
    epochs = [7, 4, 3, 1.5, 10]
    lrs = []
    for e in epochs:
        s.step(e)
        lrs.append(o.param_groups[0]['lr'])
    out['CAWR_epochs'] = {'epochs': epochs, 'lrs': lrs}
    return out


if __name__ == '__main__':
    path = Path(__file__).with_name('optim_sched_defaults_ref.json')
    path.write_text(json.dumps({'torch': torch.__version__, 'optim': optimizers(), 'sched': schedulers()}, indent=1) + '\n')
    print(f'wrote {path}')

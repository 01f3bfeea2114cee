// The same training host as the workers, on the page's main thread: for browsers without module
// workers, and on request with ?worker=0. Training then runs in short chunks (≤ 40 ms) between
// which the page handles input and paints, so it stays usable, if less smooth than with a worker.
//
// It looks like a Worker to common/demo.js (postMessage, onmessage, onerror, terminate), so the
// page code is the same in both modes.
import { init } from 'simdgrad'; // resolved by the page's import map, as in an application
import { hostTraining } from './worker-host.js';

const MAX_CHUNK_MS = 40;

export class InlineWorker {
  /** trainerUrl: the demo's trainer.js (exports createTrainer and pacing). */
  constructor(trainerUrl) {
    this.onmessage = null;
    this.onerror = null;
    this.closed = false;
    let deliver = null;
    const queue = [];
    const endpoint = {
      // Asynchronous, like a worker's messages (never re-entering the page's caller).
      post: (msg) => setTimeout(() => !this.closed && this.onmessage?.({ data: msg }), 0),
      listen: (handler) => {
        deliver = handler;
        for (const m of queue.splice(0)) setTimeout(() => handler({ data: m }), 0);
      },
    };
    this.send = (msg) => (deliver ? setTimeout(() => !this.closed && deliver({ data: msg }), 0) : queue.push(msg));
    import(trainerUrl).then(
      ({ createTrainer, pacing = {} }) => {
        const chunkMs = Math.min(pacing.chunkMs ?? MAX_CHUNK_MS, MAX_CHUNK_MS);
        hostTraining(createTrainer, { ...pacing, chunkMs, init }, endpoint);
      },
      (e) => this.onerror?.({ message: `cannot load ${trainerUrl}: ${e?.message ?? e}` }),
    );
  }

  postMessage(msg) {
    this.send(msg);
  }

  terminate() {
    this.closed = true;
  }
}

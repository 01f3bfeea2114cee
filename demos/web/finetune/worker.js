// The fine-tuning demo's module worker: the shared host runs trainer.js here, off the page's main thread.
import { hostTraining } from '../common/worker-host.js';
import { createTrainer, pacing } from './trainer.js';

hostTraining(createTrainer, pacing);

// sg.autocast and sg.amp (PyTorch's torch.autocast and torch.cuda.amp.GradScaler).
export { autocast, AUTOCAST_LISTS, type AutocastOptions } from './autocast.js';
export { GradScaler, type GradScalerOptions, type Scalable, type ScalableOptimizer } from './grad_scaler.js';

import { SimulatorProvider } from '../../telephony/simulator';
import type { Task } from './task';

/** One step of a simulated call. */
export const simulatorStepTask: Task<'simulator:step'> = {
  servedBy: (runtime) => runtime.telephony instanceof SimulatorProvider,
  run: (runtime, { call_id, step }) => (runtime.telephony as SimulatorProvider).step(runtime.orm.em.fork(), runtime.lifecycle, call_id, step),
};

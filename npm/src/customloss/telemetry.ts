// sg.telemetry: subscriptions to the events of sg.customLoss. A handler that throws is
// reported on the console and does not disturb the computation that emitted the event.
import { consoleRef } from '../runtime/env.js';
import { describe } from '../runtime/options.js';

export type GradMethod = 'numerical' | 'symbolic' | 'hybrid';

/** One regularizer's result in a linearize call: its fields, then its own metrics spread in. */
export interface RegularizerEvent {
  regularizer: string;
  value: number;
  weight: number;
  contribution: number;
  [metric: string]: unknown;
}

/** The gradient step of a linearize call. */
export interface GradientEvent {
  method: GradMethod;
  duration_ms: number;
}

export interface TelemetryEvents {
  regularizer: RegularizerEvent;
  gradient: GradientEvent;
}

export type TelemetryEvent = keyof TelemetryEvents;

const handlers: { [E in TelemetryEvent]: Set<(payload: TelemetryEvents[E]) => void> } = {
  regularizer: new Set(),
  gradient: new Set(),
};

/** Calls handler with every later `event`; returns the function that unsubscribes it. */
function on<E extends TelemetryEvent>(event: E, handler: (payload: TelemetryEvents[E]) => void): () => void {
  if (typeof event !== 'string' || !Object.hasOwn(handlers, event)) {
    throw new Error(`telemetry.on: unknown event ${describe(event)} (expected 'regularizer' or 'gradient')`);
  }
  if (typeof handler !== 'function') throw new Error(`telemetry.on: expected 'handler' to be a function, got ${describe(handler)}`);
  // A wrapper per subscription, so that subscribing the same function twice gives two.
  const entry = (payload: TelemetryEvents[E]) => handler(payload);
  const set = handlers[event] as Set<typeof entry>;
  set.add(entry);
  return () => {
    set.delete(entry);
  };
}

/** Delivers an event to its handlers. */
export function emit<E extends TelemetryEvent>(event: E, payload: TelemetryEvents[E]): void {
  for (const h of [...(handlers[event] as Set<(p: TelemetryEvents[E]) => void>)]) {
    try {
      h(payload);
    } catch (e) {
      consoleRef().warn(`telemetry: a '${event}' handler threw: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}

/** sg.telemetry. */
export interface Telemetry {
  /** Calls handler with every later `event` of sg.customLoss; returns the function that unsubscribes it. */
  on<E extends TelemetryEvent>(event: E, handler: (payload: TelemetryEvents[E]) => void): () => void;
}

export const telemetry: Telemetry = { on };

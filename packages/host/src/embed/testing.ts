/**
 * `@frank/host/embed/testing`: the simulation kit through Promises (`createFrankSimulation`), for
 * webhook flows and retry schedules tested from plain vitest or jest.
 */
export { createFrankSimulation, type FrankSimulation } from "./simulation.js"

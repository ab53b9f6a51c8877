/**
 * CEL has no loops, so the work an expression does is bounded by how many times its comprehensions
 * (`all`, `exists`, `map`, `filter`, ...) iterate; every iteration is charged to a budget shared by all
 * expressions of one evaluation, which also has a wall-clock deadline.
 */
export const DEFAULT_ITERATION_BUDGET = 200_000;
export const DEFAULT_TIME_BUDGET_MS = 100;
export const BUDGET_EXCEEDED = 'operation cancelled: actual cost limit exceeded';

/** The spend of one evaluation. */
export class EvaluationBudget {
  private remaining: number;
  private readonly deadline: number;

  constructor(iterations = DEFAULT_ITERATION_BUDGET, timeMs = DEFAULT_TIME_BUDGET_MS) {
    this.remaining = iterations;
    this.deadline = performance.now() + timeMs;
  }

  charge(n: number): void {
    this.remaining -= n;
    if (this.remaining < 0 || performance.now() > this.deadline) throw new Error(BUDGET_EXCEEDED);
  }
}

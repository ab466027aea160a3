import { appendFileSync } from 'node:fs';

/** One row of the fault suite's results table (docs/reliability.md). */
export interface FaultResult {
  scenario: string;
  load: string;
  fault: string;
  requests: number;
  accepted: number;
  delivered: number;
  lost: number;
  duplicated: number;
  /** From the end of the fault until every running node accepted again, ms. */
  recoveryMs: number | null;
  /** From the end of the fault until the last accepted message reached the provider, ms. */
  drainMs: number | null;
  notes: string;
  /** The test process's longest event-loop stall (it hosts the fake Graph API and the load), ms. */
  loopDelayMaxMs: number;
}

/**
 * Prints the row and, under `npm run test:faults`, appends it to the file the runner prints the table
 * from (ATENDE_FAULT_RESULTS), so figures are reported even when an assertion then fails.
 */
export function recordResult(row: FaultResult): void {
  console.log(`# fault result ${JSON.stringify(row)}`);
  const file = process.env.ATENDE_FAULT_RESULTS;
  if (file) appendFileSync(file, `${JSON.stringify(row)}\n`);
}

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../simulator/index';
import { aWeekOfWork } from '../../simulator/weekly-work';

/**
 * The demo's weekly work raises risks on each register's own impact and probability scales: a value
 * from another register's scale ("Major" where the register says "Severe") is rated by no matrix, so
 * the heat map would grow a stray row and the risk would read as low.
 */
const TODAY = new Date('2026-11-23T06:00:00Z');

describe('a week of work on the demo tenant', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ tenant: 'demo', flavour: 'demo', today: TODAY });
  });
  afterAll(async () => {
    await sim.close();
  });

  it('raises each new risk on its own register\'s scales, on every register', () => {
    const { tenant } = sim;
    const seen = new Set<string>();
    // Enough weeks that every register gets a new risk (one every other week, registers in turn).
    for (let week = 1; week <= 4 * tenant.registers.length + 1; week++) {
      for (const risk of aWeekOfWork(tenant, week, TODAY).addRisks ?? []) {
        const register = tenant.registers.find((r) => r.key === risk.register)!;
        const matrix = tenant.registerMatrix(register.id)!;
        expect({ register: register.key, impact: risk.impact }).toEqual({ register: register.key, impact: expect.toBeOneOf([...matrix.impacts]) });
        expect({ register: register.key, probability: risk.probability }).toEqual({ register: register.key, probability: expect.toBeOneOf([...matrix.probabilities]) });
        seen.add(register.key);
      }
    }
    expect([...seen].sort()).toEqual(tenant.registers.map((r) => r.key).sort());
  });
});

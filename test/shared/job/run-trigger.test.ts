import { describe, expect, it } from 'vitest';
import { runTrigger } from '../../../shared/job/stages/resolve';

describe('runTrigger: which runs a run is compared with (docs/changes.md)', () => {
  it('is scheduled for the schedule and on-demand for the API and by hand', () => {
    expect(runTrigger({ source: 'schedule', report: 'weekly' })).toBe('scheduled');
    expect(runTrigger({ source: 'api', report: 'weekly', exportId: 'e1' })).toBe('on-demand');
    expect(runTrigger({ source: 'manual', report: 'weekly' })).toBe('on-demand');
  });
  it('falls back to the scheduler context when no source is sent', () => {
    expect(runTrigger({ report: 'weekly', scheduledTime: '2026-11-23T06:00:00Z' })).toBe('scheduled');
    expect(runTrigger({ report: 'weekly', scheduledTime: '2026-11-23T06:00:00Z', exportId: 'e1' })).toBe('on-demand');
    expect(runTrigger({ report: 'weekly' })).toBe('on-demand');
  });
});

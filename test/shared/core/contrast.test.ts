import { describe, expect, it } from 'vitest';
import { contrastRatio, relativeLuminance, textColourOn } from '../../../shared/core/contrast';
import { readableFontColor } from '../../../shared/render/xlsx/cells';
import { FILLS } from '../../../shared/report/summary/vocabulary';
import { PRESETS } from '../../../simulator/presets';
import { generateTenant } from '../../../simulator/tenant';

/** WCAG 2.x AA for body text. */
const AA = 4.5;

describe('text on coloured fills', () => {
  it('computes WCAG contrast as the specification defines it', () => {
    expect(contrastRatio('#000000', '#FFFFFF')).toBeCloseTo(21, 5);
    expect(contrastRatio('#777777', '#FFFFFF')).toBeCloseTo(4.48, 2);
    expect(relativeLuminance('#FFF')).toBe(1);
    expect(relativeLuminance('FFFF0000')).toBeCloseTo(0.2126, 4);
    expect(relativeLuminance('red')).toBeUndefined();
  });

  it('meets AA on every fill the reports use: the risk levels of the demo tenant and the band fills', () => {
    const tenant = generateTenant({ ...PRESETS.demo }, 1, 'acme', { flavour: 'demo', todayMs: Date.UTC(2026, 10, 23) });
    const levels = new Set(tenant.allRisks.map((r) => r.riskLevel.color));
    const palette = [...levels, ...Object.values(FILLS)];
    expect(palette.length).toBeGreaterThan(4);
    const failing = palette.filter((fill) => contrastRatio(textColourOn(fill), fill) < AA);
    expect(failing).toEqual([]);
    // The amber and the green of a register were given white text before (2.1:1 and 2.7:1).
    expect(textColourOn('#FFAB00')).toBe('#000000');
    expect(textColourOn('#36B37E')).toBe('#000000');
    expect(textColourOn('#BF2600')).toBe('#FFFFFF');
  });

  it('meets AA on any colour a register may give a level (every 12-bit colour)', () => {
    const worst = { fill: '', ratio: Infinity };
    for (let n = 0; n < 4096; n++) {
      const fill = `#${[8, 4, 0].map((shift) => ((n >> shift) & 15).toString(16).repeat(2)).join('')}`;
      const ratio = contrastRatio(textColourOn(fill), fill);
      if (ratio < worst.ratio) Object.assign(worst, { fill, ratio });
    }
    expect(worst.ratio, worst.fill).toBeGreaterThanOrEqual(AA);
  });

  it('gives the workbook the same colour as ARGB', () => {
    expect(readableFontColor('FFFFAB00')).toBe('FF000000');
    expect(readableFontColor('FFBF2600')).toBe('FFFFFFFF');
  });
});

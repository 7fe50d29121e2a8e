import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';

type Impact = 'critical' | 'serious' | 'moderate' | 'minor';

/**
 * What axe finds on the page at the given impacts (critical and serious unless told), one "impact rule:
 * targets" line per finding, colour contrast included unless a caller disables it by name.
 *
 * axe is asked for its violations only: every rule still runs on every node, but the rules that pass or do
 * not apply are not gathered node by node into the results, which on a page of tables was most of a scan.
 */
export async function axeFindings(
  page: Page,
  options: { include?: string; disableRules?: string[]; impacts?: readonly Impact[] } = {},
): Promise<string[]> {
  // `options()` replaces what the builder holds: it comes before `disableRules`, which adds to it.
  let builder = new AxeBuilder({ page }).options({ resultTypes: ['violations'] });
  if (options.include) builder = builder.include(options.include);
  if (options.disableRules?.length) builder = builder.disableRules(options.disableRules);
  const impacts: readonly (Impact | null | undefined)[] = options.impacts ?? ['critical', 'serious'];
  const results = await builder.analyze();
  return results.violations
    .filter((violation) => impacts.includes(violation.impact))
    .map((violation) => `${violation.impact} ${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

import { regionCodesOf, regionRuleFor, type SettingsOf } from '@parley/protocol';
import type { DbOrTx } from '../../db/index.js';
import { ApiError } from '../../lib/errors.js';

type RegionRule = SettingsOf<'region'>['rules'][number];

/** What routing asks of the region rules (settings page `region`). */
export interface RegionRouting {
  /** The agent a rule of the visitor's region assigns it to, if any. */
  assignedAgentOf(db: DbOrTx, visitorId: number): Promise<string | null>;
  /**
   * Whether a rule keeps visitors of this region (a visitor row's `region_code`) from writing. Answered
   * from the cached page without a query, so every visitor write can afford to ask.
   */
  blocks(regionCode: string): boolean;
  /** Whether any rule blocks a region: when none does, `blocks` answers false for every visitor. */
  blocksAny(): boolean;
}

/** What a visitor of a blocked region is answered when it writes anyway (its widget shows the page's text). */
export const regionBlocked = () => new ApiError(403, 'regionBlocked');

/** Where the rules read a visitor's region code: the visitors' repository, which stores it at init. */
export interface VisitorRegionCodes {
  /** The GB/T 2260 code of the visitor's region ('' when unknown or no such visitor). */
  regionCodeOf(db: DbOrTx, visitorId: number): Promise<string>;
}

/** The region page's rules, applied by the region code looked up from a visitor's address at init. */
export class RegionRules implements RegionRouting {
  constructor(
    private readonly visitors: VisitorRegionCodes,
    /** The region page as saved (defaults filled in). */
    private readonly page: () => SettingsOf<'region'>,
  ) {}

  /** The first rule naming the region, its city or its province. */
  ruleFor(regionCode: string): RegionRule | undefined {
    const codes = regionCodesOf(regionCode);
    if (codes.length === 0) return undefined;
    return regionRuleFor({ region: this.page() }, codes);
  }

  private async ruleOfVisitor(db: DbOrTx, visitorId: number): Promise<RegionRule | undefined> {
    return this.ruleFor(await this.visitors.regionCodeOf(db, visitorId));
  }

  async assignedAgentOf(db: DbOrTx, visitorId: number): Promise<string | null> {
    const rule = await this.ruleOfVisitor(db, visitorId);
    return rule?.action === 'assign' ? (rule.serviceID ?? null) : null;
  }

  blocks(regionCode: string): boolean {
    return this.ruleFor(regionCode)?.action === 'block';
  }

  blocksAny(): boolean {
    return this.page().rules.some((rule) => rule.action === 'block');
  }
}

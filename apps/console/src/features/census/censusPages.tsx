import { CENSUS_DIMS, type CensusDim } from '@parley/protocol';
import type { ComponentType } from 'react';
import { FlowPage, TalkPage } from './DimensionPage';
import OverviewPage from './OverviewPage';
import { ServiceEvaluatePage, ServiceStatePage, ServiceTalkPage } from './ServicePages';
import './census.css';

function byDimension(Page: ComponentType<{ dim: CensusDim }>, dim: CensusDim): ComponentType {
  const ForDimension = () => <Page dim={dim} />;
  ForDimension.displayName = `${Page.name}_${dim}`;
  return ForDimension;
}

/** The statistics' pages by route name (protocol routes.ts): one lazy chunk holds them and ECharts. */
export const censusPages: Record<string, ComponentType> = {
  CensusIndex: OverviewPage,
  ...Object.fromEntries(
    CENSUS_DIMS.flatMap((dim) => [
      [`Flow_${dim}`, byDimension(FlowPage, dim)],
      [`Talk_${dim}`, byDimension(TalkPage, dim)],
    ]),
  ),
  // Conversations by label: a conversation page of its own (labels are the conversations', not the visitors').
  Talk_label: () => <TalkPage dim="label" />,
  // Conversations by channel (web, WeChat official account, mini program), read from the conversations too.
  Talk_channel: () => <TalkPage dim="channel" />,
  ServiceCensus_talk: ServiceTalkPage,
  ServiceCensus_evaluate: ServiceEvaluatePage,
  ServiceCensus_state: ServiceStatePage,
};

/** The page of a census route; a name this build does not know opens the overview. */
export function censusPageFor(name: string): ComponentType {
  return censusPages[name] ?? OverviewPage;
}

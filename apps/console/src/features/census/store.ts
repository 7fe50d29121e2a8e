import { create } from 'zustand';
import { siteTimeZone } from '../../lib/format';
import { clampRange, type DayRange, dayIn, type Preset, presetRange } from './range';

/** Today in the site's zone; the clock is a parameter so tests can set it. */
export function siteToday(now: Date = new Date()): string {
  return dayIn(siteTimeZone(), now);
}

interface CensusRangeState {
  preset: Preset;
  /** The custom range, kept while the user moves between presets and back. */
  custom: DayRange | null;
  choose(preset: Preset): void;
  pick(range: DayRange): void;
}

/**
 * The range every statistics page shows: one choice for all of them, so moving from the overview to an
 * analysis page (or between tabs) keeps the period the user was looking at.
 */
export const useCensusRangeState = create<CensusRangeState>((set) => ({
  preset: 'last7',
  custom: null,
  choose: (preset) => set({ preset }),
  pick: (range) => set({ preset: 'custom', custom: clampRange(range, siteToday()) }),
}));

/** The range to ask for now: a preset is read against today each time, so a page left open overnight moves on. */
export type CensusRangeValue = DayRange & { preset: Preset };

export function useCensusRange(): CensusRangeValue {
  const { preset, custom } = useCensusRangeState();
  const today = siteToday();
  const range = preset === 'custom' && custom ? custom : presetRange(preset, today);
  return { ...range, preset };
}

import type { EChartsCoreOption } from 'echarts/core';

/**
 * The statistics' chart options, built from the rows the server answered. Only data and layout here:
 * the chart component adds the theme's colours and text style.
 */

export interface Slice {
  name: string;
  value: number;
}

/** How many values a ranking or a pie shows; the rest is summed as one slice or left to the table. */
export const TOP = 10;

/** The largest values first, the rest summed under `rest` (a pie must add up to the whole). */
export function topSlices(slices: Slice[], rest: string, top = TOP): Slice[] {
  const sorted = [...slices].filter((slice) => slice.value > 0).sort((a, b) => b.value - a.value);
  if (sorted.length <= top) return sorted;
  const others = sorted.slice(top - 1).reduce((sum, slice) => sum + slice.value, 0);
  return [...sorted.slice(0, top - 1), { name: rest, value: others }];
}

/**
 * At a phone's width the default legend keys (25 px wide, 10 px apart) page five star ratings or five
 * devices behind arrows, cutting the last one shown in half: smaller keys and text keep them on one line.
 * ECharts applies `media` itself whenever the chart is resized.
 */
const NARROW_LEGEND = [
  { query: { maxWidth: 480 }, option: { legend: { itemWidth: 14, itemHeight: 9, itemGap: 8, textStyle: { fontSize: 11 } } } },
];

/** Long labels (a referrer, a keyword) are cut on the axis; the tooltip shows them whole. */
const LABEL_WIDTH = 110;

/** The top values of a dimension as horizontal bars, the largest on top. */
export function rankingOption(slices: Slice[], seriesName: string): EChartsCoreOption {
  const shown = [...slices]
    .filter((slice) => slice.value > 0)
    .sort((a, b) => b.value - a.value)
    .slice(0, TOP);
  return {
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' }, confine: true },
    grid: { left: 8, right: 24, top: 8, bottom: 8, containLabel: true },
    xAxis: { type: 'value', minInterval: 1 },
    yAxis: {
      type: 'category',
      inverse: true,
      data: shown.map((slice) => slice.name),
      axisLabel: { width: LABEL_WIDTH, overflow: 'truncate' },
    },
    series: [{ type: 'bar', name: seriesName, data: shown.map((slice) => slice.value), barMaxWidth: 22 }],
  };
}

/** Shares of a dimension with few values (devices, engines) as a ring. */
export function shareOption(slices: Slice[], seriesName: string): EChartsCoreOption {
  return {
    tooltip: { trigger: 'item', confine: true, formatter: '{b}: {c} ({d}%)' },
    legend: { type: 'scroll', bottom: 0 },
    media: NARROW_LEGEND,
    series: [
      {
        type: 'pie',
        name: seriesName,
        radius: ['38%', '62%'],
        center: ['50%', '45%'],
        avoidLabelOverlap: true,
        percentPrecision: 1,
        // Names are in the legend: a percentage alone beside each slice still fits a phone's width.
        label: { formatter: '{d}%' },
        labelLine: { length: 8, length2: 6 },
        data: slices,
      },
    ],
  };
}

export interface LineSeries {
  name: string;
  data: (number | null)[];
}

/** Day-by-day figures; days are shown as MM-DD, which stays short at a phone's width. */
export function trendOption(days: string[], series: LineSeries[]): EChartsCoreOption {
  return {
    tooltip: { trigger: 'axis', confine: true },
    legend: { type: 'scroll', top: 0 },
    media: NARROW_LEGEND,
    grid: { left: 8, right: 16, top: 36, bottom: 8, containLabel: true },
    xAxis: { type: 'category', boundaryGap: false, data: days.map((day) => day.slice(5)) },
    yAxis: { type: 'value', minInterval: 1 },
    series: series.map((line) => ({
      type: 'line',
      name: line.name,
      data: line.data,
      smooth: true,
      showSymbol: days.length <= 31,
      connectNulls: true,
    })),
  };
}

export interface BarSeries {
  name: string;
  data: number[];
  /** Bars with the same stack are piled (time online, hidden, offline). */
  stack?: string;
  /** A colour that means something (online green, offline grey) instead of the next one in the theme's row. */
  colour?: string;
}

/** One bar group per agent, horizontal so names read at any width. */
export function agentBarsOption(names: string[], series: BarSeries[]): EChartsCoreOption {
  return {
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' }, confine: true },
    legend: { type: 'scroll', top: 0 },
    media: NARROW_LEGEND,
    grid: { left: 8, right: 24, top: 36, bottom: 8, containLabel: true },
    xAxis: { type: 'value' },
    yAxis: { type: 'category', inverse: true, data: names, axisLabel: { width: LABEL_WIDTH, overflow: 'truncate' } },
    series: series.map((bar) => ({
      type: 'bar',
      name: bar.name,
      data: bar.data,
      stack: bar.stack,
      barMaxWidth: 18,
      itemStyle: bar.colour ? { color: bar.colour } : undefined,
    })),
  };
}

/** The height a per-agent or ranking chart needs for its rows, within bounds. */
export function heightFor(rows: number, perRow = 30, min = 240, max = 520): number {
  return Math.min(max, Math.max(min, rows * perRow + 60));
}

/** Two day-by-day figures of different scales (seconds, a score out of `rightMax`), each on its own axis. */
export function twoScaleTrendOption(days: string[], left: LineSeries, right: LineSeries, rightMax: number): EChartsCoreOption {
  return {
    ...trendOption(days, [left, right]),
    yAxis: [
      { type: 'value', minInterval: 1 },
      { type: 'value', min: 0, max: rightMax, splitLine: { show: false } },
    ],
    series: [left, right].map((line, axis) => ({
      type: 'line',
      name: line.name,
      data: line.data,
      yAxisIndex: axis,
      smooth: true,
      connectNulls: true,
    })),
  };
}

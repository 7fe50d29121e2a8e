import { theme } from 'antd';
import { BarChart, LineChart, PieChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import { type EChartsCoreOption, type EChartsType, init, use } from 'echarts/core';
import { SVGRenderer } from 'echarts/renderers';
import { useEffect, useMemo, useRef } from 'react';

// Only what the statistics draw is registered, so the chunk carries three chart types and no more.
// SVG rather than canvas: sharp at any zoom, and a drawn chart is an element a test (or a reader) can find.
use([BarChart, LineChart, PieChart, GridComponent, LegendComponent, TooltipComponent, SVGRenderer]);

export interface ChartProps {
  /** The chart's series, axes and so on; colours and text style come from the theme. */
  option: EChartsCoreOption;
  height?: number;
  testId?: string;
  /** What the chart shows, read by screen readers in place of the drawing. */
  label: string;
}

/** The theme's colours in the order series take them: the primary first, then antd's preset hues. */
function useChartColours() {
  const { token } = theme.useToken();
  return useMemo(
    () => ({
      series: [
        token.colorPrimary,
        token.colorSuccess,
        token.colorWarning,
        token.colorError,
        token.purple,
        token.cyan,
        token.magenta,
        token.gold,
        token.geekblue,
        token.lime,
      ],
      text: token.colorText,
      secondary: token.colorTextSecondary,
      line: token.colorBorderSecondary,
      font: token.fontFamily,
    }),
    [token],
  );
}

/** One ECharts chart that follows its container's size and the console's theme. */
export function Chart({ option, height = 320, testId, label }: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<EChartsType | null>(null);
  const colours = useChartColours();

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const instance = init(element, undefined, { renderer: 'svg' });
    chart.current = instance;
    // The side menu folding, a tab coming back from keep-alive or a phone turning all change the width
    // without a window resize: watch the box itself.
    const observer = new ResizeObserver(() => instance.resize());
    observer.observe(element);
    return () => {
      observer.disconnect();
      instance.dispose();
      chart.current = null;
    };
  }, []);

  useEffect(() => {
    chart.current?.setOption(
      {
        color: colours.series,
        backgroundColor: 'transparent',
        textStyle: { color: colours.text, fontFamily: colours.font },
        ...option,
      },
      { notMerge: true },
    );
  }, [option, colours]);

  return <div ref={box} role="img" aria-label={label} data-testid={testId} className="census-chart" style={{ height }} />;
}

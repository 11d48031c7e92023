import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { useEffect, useRef } from 'react';
import type { ChartSeries } from './analytics.series';

export interface ChartProps {
  /** The buckets' starts, in seconds (uPlot's time unit). */
  x: number[];
  series: ChartSeries[];
  height?: number;
}

/**
 * A uPlot chart of the buckets, loaded with its library only when a chart first shows (the
 * console's first load stays small). Drawn in UTC, as the buckets are. Its own legend is off:
 * the page draws one that shows each line's dash and marker beside its name.
 */
export default function Chart({ x, series, height = 220 }: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const right = series.some((one) => one.axis === 'right');
    const axisOf = (side: 'left' | 'right') => series.find((one) => (one.axis ?? 'left') === side);
    const values = (side: 'left' | 'right') => (_: uPlot, ticks: number[]) => ticks.map((tick) => axisOf(side)?.tick(tick) ?? String(tick));
    const options: uPlot.Options = {
      width: Math.max(element.clientWidth, 240),
      height,
      tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
      legend: { show: false },
      scales: {
        x: { time: true },
        left: { range: (_, _min, max) => [0, axisOf('left')?.max ?? (max > 0 ? max * 1.1 : 1)] },
        right: { range: (_, _min, max) => [0, axisOf('right')?.max ?? (max > 0 ? max * 1.1 : 1)] },
      },
      series: [
        {},
        ...series.map((one) => ({
          label: one.label,
          scale: one.axis ?? 'left',
          stroke: one.color,
          width: 2,
          dash: one.dash,
          points: { show: true, size: 8, width: 2, stroke: one.color, fill: one.marker === 'hollow' ? '#ffffff' : one.color },
        })),
      ],
      axes: [
        {},
        { scale: 'left', values: values('left'), size: 64 },
        ...(right ? [{ scale: 'right', side: 1 as const, values: values('right'), grid: { show: false }, size: 64 }] : []),
      ],
    };
    const chart = new uPlot(options, [x, ...series.map((one) => one.values)], element);
    const resized = new ResizeObserver(() => chart.setSize({ width: Math.max(element.clientWidth, 240), height }));
    resized.observe(element);
    return () => {
      resized.disconnect();
      chart.destroy();
    };
  }, [x, series, height]);
  return <div ref={box} className="analytics-chart" aria-hidden="true" />;
}

import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

/** A line per series over shared x values (Unix seconds). */
export interface ChartData {
  readonly x: number[];
  readonly series: ReadonlyArray<{ readonly label: string; readonly values: Array<number | null> }>;
}

/** Distinct colours with enough contrast on white (WCAG 3:1 for graphics). */
const COLOURS = ['#1f5fbf', '#c2410c', '#15803d', '#7e22ce', '#b91c1c', '#0e7490', '#a16207', '#be185d'];

/** A uPlot line chart that fills its container's width. */
export function Chart({
  title,
  data,
  format,
  minimumTop = 1,
}: {
  title: string;
  data: ChartData;
  format?: (value: number) => string;
  /** The y axis starts at 0 and reaches at least this high (so an all-zero line sits at the bottom). */
  minimumTop?: number;
}) {
  const container = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = container.current;
    if (element === null) return undefined;
    const options: uPlot.Options = {
      width: Math.max(240, element.clientWidth),
      height: 200,
      legend: { show: true },
      cursor: { drag: { x: false, y: false } },
      scales: {
        x: { time: true },
        y: { range: (_plot, _min, max) => [0, Math.max(minimumTop, max * 1.1)] },
      },
      axes: [
        {},
        {
          size: 84,
          values: (_plot, ticks) => ticks.map((tick) => (format === undefined ? String(tick) : format(tick))),
        },
      ],
      series: [
        {},
        ...data.series.map((series, index) => ({
          label: series.label,
          stroke: COLOURS[index % COLOURS.length],
          width: 2,
          points: { show: data.x.length < 2 || series.values.filter((value) => value !== null).length < 3 },
          value: (_plot: uPlot, value: number | null) =>
            value === null ? '–' : format === undefined ? String(value) : format(value),
        })),
      ],
    };
    const plot = new uPlot(
      options,
      [data.x, ...data.series.map((series) => series.values)] as uPlot.AlignedData,
      element,
    );
    const observer = new ResizeObserver(() => plot.setSize({ width: Math.max(240, element.clientWidth), height: 200 }));
    observer.observe(element);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, [data, format, minimumTop]);
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <div ref={container} role="img" aria-label={title} />
    </figure>
  );
}

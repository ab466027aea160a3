import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
  type ChartConfiguration,
} from 'chart.js';
import { useEffect, useRef } from 'react';
import { useI18n } from '../i18n';

// Charts on Chart.js 4 (docs/adr/0091-report-charts.md), registering only what the reports draw —
// line and bar charts on a category and a linear axis, with a legend and tooltips — so the rest of
// the library is left out of the bundle. Every chart stands beside a table with the same figures,
// which is what screen readers and the keyboard use: the canvas is an image named after that table.

Chart.register(
  LineController,
  LineElement,
  PointElement,
  BarController,
  BarElement,
  CategoryScale,
  LinearScale,
  Legend,
  Tooltip,
);

/** Colours of the series, in order: the console's teal first, then ones told apart without hue alone. */
export const SERIES_COLORS = ['#0f766e', '#1570ef', '#b54708', '#7a5af8', '#b42318', '#667085'];

export interface ChartSeries {
  label: string;
  data: (number | null)[];
  /** Drawn dashed (e.g. a p90 beside its average). */
  dashed?: boolean;
}

export interface ChartProps {
  type: 'line' | 'bar';
  labels: string[];
  series: ChartSeries[];
  /** The id of the table with the same figures: the canvas is described by it. */
  tableId: string;
  /** The canvas's name for assistive technology (the chart's title). */
  title: string;
  /** How a value reads in the axis and the tooltip (a duration, a percentage…). */
  format?: (value: number) => string;
  stacked?: boolean;
  /** Bars across (groups by name). */
  horizontal?: boolean;
  /** A y axis that ends at this value (100 for percentages). */
  max?: number;
}

export function ReportChart(props: ChartProps) {
  const { lang } = useI18n();
  const canvas = useRef<HTMLCanvasElement>(null);
  const { type, labels, series, format, stacked, horizontal, max } = props;

  useEffect(() => {
    const el = canvas.current;
    if (!el) return;
    const valueAxis = {
      beginAtZero: true,
      stacked,
      max,
      ticks: {
        precision: format ? undefined : 0,
        callback: format ? (v: number | string) => format(Number(v)) : undefined,
      },
    };
    const config: ChartConfiguration<'line' | 'bar', (number | null)[], string> = {
      type,
      data: {
        labels,
        datasets: series.map((s, i) => {
          const color = SERIES_COLORS[i % SERIES_COLORS.length] ?? '#0f766e';
          return {
            label: s.label,
            data: s.data,
            borderColor: color,
            backgroundColor: type === 'bar' ? color : `${color}33`,
            borderDash: s.dashed ? [6, 4] : undefined,
            borderWidth: 2,
            pointRadius: labels.length > 48 ? 0 : 3,
            spanGaps: true,
          };
        }),
      },
      options: {
        // No animation: figures appear at once, cost no CPU, and nothing moves for those who prefer not.
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        locale: lang,
        indexAxis: horizontal ? 'y' : 'x',
        interaction: { mode: 'index', intersect: false },
        scales: horizontal
          ? { x: valueAxis, y: { stacked } }
          : { x: { stacked, ticks: { autoSkip: true, maxRotation: 0 } }, y: valueAxis },
        plugins: {
          legend: { position: 'bottom', labels: { boxWidth: 14 } },
          tooltip: format
            ? { callbacks: { label: (c) => `${c.dataset.label ?? ''}: ${format(Number(c.raw))}` } }
            : {},
        },
      },
    };
    const chart = new Chart(el, config);
    el.dataset.rendered = 'true';
    return () => {
      delete el.dataset.rendered;
      chart.destroy();
    };
  }, [type, labels, series, format, stacked, horizontal, max, lang]);

  // Bars across get room by their number (one group per agent may be many), at least the usual height.
  const height = horizontal ? Math.max(280, labels.length * 20 * Math.max(1, series.length) + 60) : undefined;
  return (
    <div className="report-chart" style={height ? { height } : undefined}>
      <canvas
        ref={canvas}
        role="img"
        aria-label={props.title}
        aria-describedby={props.tableId}
        data-testid={`chart-${props.tableId}`}
      />
    </div>
  );
}

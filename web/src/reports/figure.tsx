import { useMemo, type ReactNode } from 'react';
import { ReportChart, type ChartProps } from './chart';
import type { Metrics } from './types';

// One figure of a report: a chart over the buckets and, beside it, the table with the same figures —
// a row per bucket and the range's total — which is the chart's accessible equivalent.

export interface Column {
  /** Stable name, as the CSV names it (a cell's data-col). */
  key: string;
  label: string;
  /** The figure as a number (what the chart draws); null when nothing was measured. */
  value: (m: Metrics) => number | null;
  /** How the table writes it. */
  text: (m: Metrics) => string;
  /** Drawn on the chart (default: yes). */
  charted?: boolean;
  dashed?: boolean;
}

export interface Row {
  key: string;
  label: string;
  metrics: Metrics;
}

export function Figure(props: {
  id: string;
  title: string;
  description?: ReactNode;
  type: ChartProps['type'];
  columns: Column[];
  rows: Row[];
  totals: Metrics;
  totalLabel: string;
  /** The first column's heading (the bucket, the group…). */
  rowHeading: string;
  format?: (value: number) => string;
  max?: number;
  horizontal?: boolean;
  /** The table under the chart rather than beside it (a wide one). */
  tableBelow?: boolean;
  /** The figure drawn on the chart when it differs from the table's (e.g. minutes for durations). */
  chartValue?: (column: Column, m: Metrics) => number | null;
}) {
  const { id, columns, rows, chartValue } = props;
  const tableId = `table-${id}`;
  const labels = useMemo(() => rows.map((r) => r.label), [rows]);
  const series = useMemo(
    () =>
      columns
        .filter((c) => c.charted !== false)
        .map((c) => ({
          label: c.label,
          dashed: c.dashed,
          data: rows.map((r) => (chartValue ? chartValue(c, r.metrics) : c.value(r.metrics))),
        })),
    [columns, rows, chartValue],
  );

  return (
    <section className="report-figure card" aria-labelledby={`${id}-title`} data-testid={`figure-${id}`}>
      <h2 id={`${id}-title`}>{props.title}</h2>
      {props.description && <p className="muted report-figure-note">{props.description}</p>}
      <div className={props.tableBelow ? 'report-figure-body below' : 'report-figure-body'}>
        {rows.length > 0 && (
          <ReportChart
            type={props.type}
            labels={labels}
            series={series}
            tableId={tableId}
            title={props.title}
            format={props.format}
            max={props.max}
            horizontal={props.horizontal}
          />
        )}
        <div className="report-table-wrap" role="region" tabIndex={0} aria-labelledby={`${id}-title`}>
          <table className="report-table" id={tableId} data-testid={tableId}>
            <caption className="sr-only">{props.title}</caption>
            <thead>
              <tr>
                <th scope="col">{props.rowHeading}</th>
                {columns.map((c) => (
                  <th key={c.key} scope="col">
                    {c.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.key} data-row={r.key}>
                  <th scope="row">{r.label}</th>
                  {columns.map((c) => (
                    <td key={c.key} data-col={c.key}>
                      {c.text(r.metrics)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr data-row="total">
                <th scope="row">{props.totalLabel}</th>
                {columns.map((c) => (
                  <td key={c.key} data-col={c.key}>
                    {c.text(props.totals)}
                  </td>
                ))}
              </tr>
            </tfoot>
          </table>
        </div>
      </div>
    </section>
  );
}

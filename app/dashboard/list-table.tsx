import type { ReactNode } from 'react';

/** One column of a list: its header, and the cell it shows for a row (labelled for the stacked cards on phones). */
export interface Column<Row> {
  label: string;
  numeric?: boolean;
  nowrap?: boolean;
  cell(row: Row): ReactNode;
}

const cellClass = (column: { numeric?: boolean; nowrap?: boolean }) => [column.numeric && 'dash-num', column.nowrap && 'dash-nowrap'].filter(Boolean).join(' ') || undefined;

/** A list of rows as a table that becomes one card per row at phone width. */
export function ListTable<Row extends { id: string }>({ columns, rows }: { columns: readonly Column<Row>[]; rows: readonly Row[] }) {
  return (
    <div className="dash-table-wrap">
      <table className="dash-table dash-table-stack">
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column.label} scope="col" className={column.numeric ? 'dash-num' : undefined}>
                {column.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.id}>
              {columns.map((column) => (
                <td key={column.label} className={cellClass(column)} data-label={column.label}>
                  {/* One box for the value: on a phone the cell lays out its label and this side by side. */}
                  <div className="dash-cell">{column.cell(row)}</div>
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The From and To days of a list's filters (whole UTC days). */
export function DateRangeFields({ idPrefix, from, to }: { idPrefix: string; from: string; to: string }) {
  return (
    <>
      <div className="dash-field">
        <label htmlFor={`${idPrefix}-from`}>From</label>
        <input id={`${idPrefix}-from`} name="from" type="date" defaultValue={from} />
      </div>
      <div className="dash-field">
        <label htmlFor={`${idPrefix}-to`}>To</label>
        <input id={`${idPrefix}-to`} name="to" type="date" defaultValue={to} />
      </div>
    </>
  );
}

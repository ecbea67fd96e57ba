/** The pieces every /docs page is made of: tables that stack on a phone, type links, code blocks. */
import type { ReactNode } from 'react';
import { Inline } from './markdown';
import type { Reference } from './reference';
import type { FieldRow, TypeLabel } from './schema-rows';

export function TypeText({ type, reference }: { type: TypeLabel; reference: Reference }) {
  return type.ref ? <a href={reference.schemaHref(type.ref)}>{type.text}</a> : type.text;
}

export function Method({ method }: { method: string }) {
  return <span className={`docs-method docs-method-${method}`}>{method.toUpperCase()}</span>;
}

/**
 * A table whose rows become cards on a narrow screen (docs.css): each cell then carries its
 * column's name, from `data-label`. Wide screens scroll it sideways, by keyboard too.
 */
export function Table({ caption, columns, children }: { caption: string; columns: string[]; children: ReactNode }) {
  return (
    <div className="docs-table" role="region" aria-label={caption} tabIndex={0}>
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** A cell that names its column when the table stacks. */
export function Cell({ label, children }: { label: string; children: ReactNode }) {
  return (
    <td data-label={label}>
      <div>{children}</div>
    </td>
  );
}

/** Short value lists inline; long ones (every error code) folded, which needs no JavaScript. */
function Values({ values }: { values: string[] }) {
  const list = <Inline text={values.map((value) => `\`${value}\``).join(', ')} />;
  if (values.length <= 8) return <li>one of {list}</li>;
  return (
    <li>
      <details>
        <summary>one of {values.length} values</summary>
        {list}
      </details>
    </li>
  );
}

export function Constraints({ rules, values }: { rules: string[]; values: string[] | undefined }) {
  return rules.length === 0 && !values ? null : (
    <ul className="docs-constraints">
      {values && <Values values={values} />}
      {rules.map((rule) => (
        <li key={rule}>
          <Inline text={rule} />
        </li>
      ))}
    </ul>
  );
}

export function FieldTable({ caption, rows, showRequired, reference }: { caption: string; rows: FieldRow[]; showRequired: boolean; reference: Reference }) {
  const columns = showRequired ? ['Field', 'Type', 'Required', 'Description', 'Constraints'] : ['Field', 'Type', 'Description', 'Constraints'];
  return (
    <Table caption={caption} columns={columns}>
      {rows.map((row) => (
        <tr key={row.name}>
          <th scope="row">
            <code>{row.name}</code>
          </th>
          <Cell label="Type">
            <TypeText type={row.type} reference={reference} />
          </Cell>
          {showRequired && <Cell label="Required">{row.required ? <strong>required</strong> : 'optional'}</Cell>}
          <Cell label="Description">{row.description ? <Inline text={row.description} /> : null}</Cell>
          <Cell label="Constraints">
            <Constraints rules={row.constraints} values={row.values} />
          </Cell>
        </tr>
      ))}
    </Table>
  );
}

/** Preformatted code in a region of its own: it scrolls, by keyboard too, instead of widening the page. */
export function CodeBlock({ label, code }: { label: string; code: string }) {
  return (
    <figure className="docs-code">
      <figcaption>{label}</figcaption>
      <pre role="region" aria-label={label} tabIndex={0}>
        <code>{code}</code>
      </pre>
    </figure>
  );
}

/**
 * The API reference, rendered on the server from the OpenAPI document alone: what /docs shows
 * is what clients and linters read, and it needs no client JavaScript.
 */
import type { ReactNode } from 'react';
import {
  HTTP_METHODS,
  isReference,
  type HttpMethod,
  type OpenAPIObject,
  type OperationObject,
  type ParameterObject,
  type ResponseObject,
  type SecuritySchemeObject,
} from '@/server/openapi/types';
import { Inline, Markdown } from './markdown';
import { constraintsOf, errorCodesOf, fieldRows, typeLabel, valuesOf, type AnySchema, type FieldRow, type TypeLabel } from './schema-rows';

interface Operation {
  id: string;
  method: HttpMethod;
  /** As a request line shows it, `/api/v1/products`: the server's path plus the operation's. */
  fullPath: string;
  operation: OperationObject;
}

const anchor = (value: string) => value.replace(/[^A-Za-z0-9_-]+/g, '-');
const schemaAnchor = (name: string) => `schema-${anchor(name)}`;
const tagAnchor = (name: string) => `tag-${anchor(name)}`;

function operationsByTag(document: OpenAPIObject, pathPrefix: string): Map<string, Operation[]> {
  const groups = new Map<string, Operation[]>((document.tags ?? []).map((tag) => [tag.name, []]));
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const tag = operation.tags?.[0] ?? 'Other';
      const id = anchor(operation.operationId ?? `${method}-${path}`);
      groups.set(tag, [...(groups.get(tag) ?? []), { id, method, fullPath: `${pathPrefix}${path}`, operation }]);
    }
  }
  return groups;
}

function TypeText({ type }: { type: TypeLabel }) {
  return type.ref ? <a href={`#${schemaAnchor(type.ref)}`}>{type.text}</a> : <>{type.text}</>;
}

function Method({ method }: { method: string }) {
  return <span className={`docs-method docs-method-${method}`}>{method.toUpperCase()}</span>;
}

/** A table that scrolls sideways on narrow screens and can be scrolled by keyboard. */
function Table({ caption, head, children }: { caption: string; head: string[]; children: ReactNode }) {
  return (
    <div className="docs-table" role="region" aria-label={caption} tabIndex={0}>
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            {head.map((cell) => (
              <th key={cell} scope="col">
                {cell}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
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

function Constraints({ rules, values }: { rules: string[]; values: string[] | undefined }) {
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

function FieldTable({ caption, rows, showRequired }: { caption: string; rows: FieldRow[]; showRequired: boolean }) {
  return (
    <Table caption={caption} head={showRequired ? ['Field', 'Type', 'Required', 'Description', 'Constraints'] : ['Field', 'Type', 'Description', 'Constraints']}>
      {rows.map((row) => (
        <tr key={row.name}>
          <th scope="row">
            <code>{row.name}</code>
          </th>
          <td>
            <TypeText type={row.type} />
          </td>
          {showRequired && <td>{row.required ? <strong>required</strong> : 'optional'}</td>}
          <td>{row.description ? <Inline text={row.description} /> : null}</td>
          <td>
            <Constraints rules={row.constraints} values={row.values} />
          </td>
        </tr>
      ))}
    </Table>
  );
}

function resolveParameter(document: OpenAPIObject, parameter: NonNullable<OperationObject['parameters']>[number]): ParameterObject | undefined {
  if (!isReference(parameter)) return parameter;
  const target = document.components?.parameters?.[parameter.$ref.slice(parameter.$ref.lastIndexOf('/') + 1)];
  return target && !isReference(target) ? target : undefined;
}

function resolveResponse(document: OpenAPIObject, response: ResponseObject | { $ref: string }): ResponseObject | undefined {
  if (!isReference(response)) return response;
  const target = document.components?.responses?.[response.$ref.slice(response.$ref.lastIndexOf('/') + 1)];
  return target && !isReference(target) ? target : undefined;
}

function schemeLabel(scheme: SecuritySchemeObject | undefined): string {
  if (!scheme) return 'unknown';
  if (scheme.type === 'http' && scheme.scheme === 'bearer') return `\`Authorization: Bearer ${scheme.bearerFormat ?? '<token>'}\``;
  if (scheme.type === 'apiKey') return `\`${scheme.name}\` ${scheme.in ?? 'header'}`;
  return scheme.type;
}

function securitySchemeOf(document: OpenAPIObject, name: string): SecuritySchemeObject | undefined {
  const scheme = document.components?.securitySchemes?.[name];
  return scheme && !isReference(scheme) ? scheme : undefined;
}

function OperationSection({ document, entry }: { document: OpenAPIObject; entry: Operation }) {
  const { operation, method, fullPath, id } = entry;
  const parameters = (operation.parameters ?? []).map((parameter) => resolveParameter(document, parameter)).filter((p) => p !== undefined);
  const body = operation.requestBody && !isReference(operation.requestBody) ? operation.requestBody : undefined;
  const bodySchema: AnySchema | undefined = body?.content['application/json']?.schema;
  const auth = (operation.security ?? []).flatMap((requirement) => Object.keys(requirement)).map((name) => schemeLabel(securitySchemeOf(document, name)));
  const responses = Object.entries(operation.responses ?? {})
    .map(([status, response]) => ({ status, response: resolveResponse(document, response) }))
    .filter((entry): entry is { status: string; response: ResponseObject } => entry.response !== undefined);
  const successes = responses.filter(({ status }) => Number(status) < 400);
  const failures = responses.filter(({ status }) => Number(status) >= 400);
  const summary = operation.summary ?? `${method.toUpperCase()} ${fullPath}`;

  return (
    <article className="docs-operation" id={id} aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{summary}</h3>
      <p className="docs-endpoint">
        <Method method={method} /> <code>{fullPath}</code>
      </p>
      <Markdown text={operation.description} />
      <p className="docs-auth">
        <strong>Authentication:</strong> {auth.length === 0 ? 'none' : auth.map((label, index) => <span key={label}>{index > 0 && ' or '}<Inline text={label} /></span>)}
      </p>

      {parameters.length > 0 && (
        <>
          <h4>Parameters</h4>
          <Table caption={`Parameters of ${summary}`} head={['Name', 'In', 'Type', 'Required', 'Description']}>
            {parameters.map((parameter) => {
              const schema: AnySchema = parameter.schema ?? {};
              return (
                <tr key={`${parameter.in}-${parameter.name}`}>
                  <th scope="row">
                    <code>{parameter.name}</code>
                  </th>
                  <td>{parameter.in}</td>
                  <td>
                    <TypeText type={typeLabel(schema)} />
                  </td>
                  <td>{parameter.required ? <strong>required</strong> : 'optional'}</td>
                  <td>
                    {parameter.description && <Inline text={parameter.description} />}
                    <Constraints rules={constraintsOf(schema)} values={valuesOf(schema)} />
                  </td>
                </tr>
              );
            })}
          </Table>
        </>
      )}

      {bodySchema && (
        <>
          <h4>Request body</h4>
          <p className="docs-note">
            JSON object{body?.required ? '' : ' (optional)'}
            {bodySchema && isReference(bodySchema) ? (
              <>
                : <TypeText type={typeLabel(bodySchema)} />
              </>
            ) : null}
            .
          </p>
          <FieldTable caption={`Request body of ${summary}`} rows={fieldRows(document, bodySchema)} showRequired />
        </>
      )}

      <h4>Responses</h4>
      <ul className="docs-responses">
        {successes.map(({ status, response }) => {
          const schema = response.content?.['application/json']?.schema;
          return (
            <li key={status}>
              <span className="docs-status docs-status-ok">{status}</span> <Inline text={response.description} />
              {schema && (
                <>
                  {' '}
                  Returns <TypeText type={typeLabel(schema)} />.
                </>
              )}
            </li>
          );
        })}
      </ul>
      {failures.length > 0 && (
        <Table caption={`Errors of ${summary}`} head={['Status', 'Error codes']}>
          {failures.map(({ status, response }) => (
            <tr key={status}>
              <th scope="row">
                <span className="docs-status docs-status-error">{status}</span>
              </th>
              <td>
                <Inline text={response.description} />
                {response.headers && Object.keys(response.headers).length > 0 && (
                  <>
                    {' '}
                    Headers: <Inline text={Object.keys(response.headers).map((name) => `\`${name}\``).join(', ')} />.
                  </>
                )}
              </td>
            </tr>
          ))}
        </Table>
      )}
    </article>
  );
}

function errorCodesByStatus(document: OpenAPIObject): [string, string[]][] {
  const byStatus = new Map<string, Set<string>>();
  for (const item of Object.values(document.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      for (const [status, response] of Object.entries(item[method]?.responses ?? {})) {
        const resolved = resolveResponse(document, response as ResponseObject);
        const codes = errorCodesOf(resolved?.content?.['application/json']?.schema);
        if (codes.length > 0) byStatus.set(status, new Set([...(byStatus.get(status) ?? []), ...codes]));
      }
    }
  }
  return [...byStatus.entries()].sort(([a], [b]) => Number(a) - Number(b)).map(([status, codes]) => [status, [...codes]]);
}

export function ApiReference({ document }: { document: OpenAPIObject }) {
  const serverUrl = document.servers?.[0]?.url ?? '';
  const pathPrefix = serverUrl ? new URL(serverUrl).pathname.replace(/\/+$/, '') : '';
  const groups = [...operationsByTag(document, pathPrefix)].filter(([, operations]) => operations.length > 0);
  const tagDescriptions = new Map((document.tags ?? []).map((tag) => [tag.name, tag.description]));
  const schemas = Object.keys(document.components?.schemas ?? {});
  const schemes = Object.entries(document.components?.securitySchemes ?? {}).filter((entry): entry is [string, SecuritySchemeObject] => !isReference(entry[1]));

  return (
    <div className="docs">
      <a className="docs-skip" href="#docs-main">
        Skip to content
      </a>
      <header className="docs-header">
        <p className="docs-eyebrow">API reference · version {document.info.version}</p>
        <h1>{document.info.title}</h1>
        <p>
          OpenAPI {document.openapi} document: <a href={`${pathPrefix}/openapi.json`}>{`${pathPrefix}/openapi.json`}</a>
          {document.info.license && <> · {document.info.license.name} license</>}
        </p>
      </header>
      <div className="docs-layout">
        <nav className="docs-toc" aria-label="Contents">
          <h2 className="docs-toc-title">Contents</h2>
          <ul>
            <li>
              <a href="#introduction">Introduction</a>
            </li>
            <li>
              <a href="#authentication">Authentication</a>
            </li>
            <li>
              <a href="#errors">Errors</a>
            </li>
            {groups.map(([tag, operations]) => (
              <li key={tag}>
                <a href={`#${tagAnchor(tag)}`}>{tag}</a>
                <ul className="docs-toc-operations">
                  {operations.map(({ id, method, operation }) => (
                    <li key={id}>
                      <a href={`#${id}`}>
                        <Method method={method} /> {operation.summary ?? id}
                      </a>
                    </li>
                  ))}
                </ul>
              </li>
            ))}
            <li>
              <a href="#objects">Objects</a>
            </li>
          </ul>
        </nav>
        <main id="docs-main" className="docs-main" tabIndex={-1}>
          <section aria-labelledby="introduction">
            <h2 id="introduction">Introduction</h2>
            <p>
              Base URL: <code>{serverUrl}</code>
            </p>
            <Markdown text={document.info.description} />
          </section>

          <section aria-labelledby="authentication">
            <h2 id="authentication">Authentication</h2>
            <dl className="docs-schemes">
              {schemes.map(([name, scheme]) => (
                <div key={name}>
                  <dt>
                    <Inline text={schemeLabel(scheme)} />
                  </dt>
                  <dd>
                    <Markdown text={scheme.description} />
                  </dd>
                </div>
              ))}
            </dl>
          </section>

          <section aria-labelledby="errors">
            <h2 id="errors">Errors</h2>
            <Markdown text={(document.components?.schemas?.Error as { description?: string } | undefined)?.description} />
            <FieldTable caption="Fields of the error envelope" rows={fieldRows(document, { $ref: '#/components/schemas/Error' })} showRequired />
            <Table caption="Error codes by HTTP status" head={['Status', 'Codes']}>
              {errorCodesByStatus(document).map(([status, codes]) => (
                <tr key={status}>
                  <th scope="row">{status}</th>
                  <td>
                    <Inline text={codes.map((code) => `\`${code}\``).join(', ')} />
                  </td>
                </tr>
              ))}
            </Table>
          </section>

          {groups.map(([tag, operations]) => (
            <section key={tag} aria-labelledby={tagAnchor(tag)}>
              <h2 id={tagAnchor(tag)}>{tag}</h2>
              <Markdown text={tagDescriptions.get(tag)} />
              {operations.map((entry) => (
                <OperationSection key={entry.id} document={document} entry={entry} />
              ))}
            </section>
          ))}

          <section aria-labelledby="objects">
            <h2 id="objects">Objects</h2>
            {schemas.map((name) => {
              const schema = document.components?.schemas?.[name];
              return (
                <article key={name} id={schemaAnchor(name)} className="docs-object" aria-labelledby={`${schemaAnchor(name)}-title`}>
                  <h3 id={`${schemaAnchor(name)}-title`}>{name}</h3>
                  {schema && !isReference(schema) && <Markdown text={schema.description} />}
                  <FieldTable caption={`Fields of ${name}`} rows={fieldRows(document, { $ref: `#/components/schemas/${name}` })} showRequired={false} />
                </article>
              );
            })}
          </section>
        </main>
      </div>
      <footer className="docs-footer">
        <p>Generated from the OpenAPI document the service serves; every operation lives under {serverUrl}.</p>
      </footer>
    </div>
  );
}

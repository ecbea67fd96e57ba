/** One operation of the reference: what it takes, an example request and answer, what it answers. */
import { isReference, type OpenAPIObject, type ResponseObject, type SecuritySchemeObject } from '@/server/openapi/types';
import { Cell, CodeBlock, Constraints, FieldTable, Method, Table, TypeText } from './components';
import { operationExample } from './examples';
import { Inline, Markdown } from './markdown';
import { resolveParameter, resolveResponse, type Operation, type Reference } from './reference';
import { constraintsOf, fieldRows, resolveSchema, typeLabel, valuesOf, type AnySchema, type FieldRow } from './schema-rows';

export function schemeLabel(scheme: SecuritySchemeObject | undefined): string {
  if (!scheme) return 'unknown';
  if (scheme.type === 'http' && scheme.scheme === 'bearer') return `\`Authorization: Bearer ${scheme.bearerFormat ?? '<token>'}\``;
  if (scheme.type === 'apiKey') return `\`${scheme.name}\` ${scheme.in ?? 'header'}`;
  return scheme.type;
}

function securitySchemeOf(document: OpenAPIObject, name: string): SecuritySchemeObject | undefined {
  const scheme = document.components?.securitySchemes?.[name];
  return scheme && !isReference(scheme) ? scheme : undefined;
}

/**
 * A body of one object per mode (`oneOf`): the fields every mode has, once, then each mode's own.
 * Any other body: its fields.
 */
function RequestBody({ reference, schema, summary }: { reference: Reference; schema: AnySchema; summary: string }) {
  const { document } = reference;
  const resolved = resolveSchema(document, schema);
  const variants = resolved?.oneOf?.map((variant) => resolveSchema(document, variant)).filter((variant) => variant !== undefined);
  if (!resolved || !variants) return <FieldTable caption={`Request body of ${summary}`} rows={fieldRows(document, schema)} showRequired reference={reference} />;
  const rowsOf = variants.map((variant) => fieldRows(document, variant));
  const key = (row: FieldRow) => JSON.stringify(row);
  const shared = rowsOf[0]!.filter((row) => rowsOf.every((rows) => rows.some((other) => key(other) === key(row))));
  const sharedKeys = new Set(shared.map(key));
  return (
    <>
      <Markdown text={resolved.description} />
      {variants.map((variant, index) => {
        const title = variant.title ?? `Variant ${index + 1}`;
        return (
          <section key={title} className="docs-variant" aria-label={title}>
            <h5>{title}</h5>
            <Markdown text={variant.description} />
            <FieldTable caption={`${title} of ${summary}`} rows={rowsOf[index]!.filter((row) => !sharedKeys.has(key(row)))} showRequired reference={reference} />
          </section>
        );
      })}
      {shared.length > 0 && (
        <section className="docs-variant" aria-label="Fields of every mode">
          <h5>Fields of every mode</h5>
          <FieldTable caption={`Fields of every mode of ${summary}`} rows={shared} showRequired reference={reference} />
        </section>
      )}
    </>
  );
}

export function OperationSection({ reference, entry }: { reference: Reference; entry: Operation }) {
  const { document } = reference;
  const { operation, method, fullPath, id } = entry;
  const parameters = (operation.parameters ?? []).map((parameter) => resolveParameter(document, parameter)).filter((p) => p !== undefined);
  const body = operation.requestBody && !isReference(operation.requestBody) ? operation.requestBody : undefined;
  const bodySchema: AnySchema | undefined = body?.content['application/json']?.schema;
  const auth = (operation.security ?? []).flatMap((requirement) => Object.keys(requirement)).map((name) => schemeLabel(securitySchemeOf(document, name)));
  const responses = Object.entries(operation.responses ?? {})
    .map(([status, response]) => ({ status, response: resolveResponse(document, response) }))
    .filter((item): item is { status: string; response: ResponseObject } => item.response !== undefined);
  const successes = responses.filter(({ status }) => Number(status) < 400);
  const failures = responses.filter(({ status }) => Number(status) >= 400);
  const summary = operation.summary ?? `${method.toUpperCase()} ${fullPath}`;
  const example = operationExample(document, reference.serverUrl, entry);

  return (
    <article className="docs-operation" id={id} aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{summary}</h3>
      <p className="docs-endpoint">
        <Method method={method} /> <code>{fullPath}</code>
      </p>
      <Markdown text={operation.description} />
      <p className="docs-auth">
        <strong>Authentication:</strong>{' '}
        {auth.length === 0
          ? 'none'
          : auth.map((label, index) => (
              <span key={label}>
                {index > 0 && ' or '}
                <Inline text={label} />
              </span>
            ))}
      </p>

      {parameters.length > 0 && (
        <>
          <h4>Parameters</h4>
          <Table caption={`Parameters of ${summary}`} columns={['Name', 'In', 'Type', 'Required', 'Description']}>
            {parameters.map((parameter) => {
              const schema: AnySchema = parameter.schema ?? {};
              return (
                <tr key={`${parameter.in}-${parameter.name}`}>
                  <th scope="row">
                    <code>{parameter.name}</code>
                  </th>
                  <Cell label="In">{parameter.in}</Cell>
                  <Cell label="Type">
                    <TypeText type={typeLabel(schema)} reference={reference} />
                  </Cell>
                  <Cell label="Required">{parameter.required ? <strong>required</strong> : 'optional'}</Cell>
                  <Cell label="Description">
                    {parameter.description && <Inline text={parameter.description} />}
                    <Constraints rules={constraintsOf(schema)} values={valuesOf(schema)} />
                  </Cell>
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
            {isReference(bodySchema) ? (
              <>
                : <TypeText type={typeLabel(bodySchema)} reference={reference} />
              </>
            ) : null}
            .
          </p>
          <RequestBody reference={reference} schema={bodySchema} summary={summary} />
        </>
      )}

      <h4>Example</h4>
      <div className="docs-example">
        <CodeBlock label={`Example request: ${summary}`} code={example.curl} />
        {example.response !== undefined && <CodeBlock label={`Example response: ${example.status}`} code={example.response} />}
      </div>

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
                  Returns <TypeText type={typeLabel(schema)} reference={reference} />.
                </>
              )}
            </li>
          );
        })}
      </ul>
      {failures.length > 0 && (
        <Table caption={`Errors of ${summary}`} columns={['Status', 'Error codes']}>
          {failures.map(({ status, response }) => (
            <tr key={status}>
              <th scope="row">
                <span className="docs-status docs-status-error">{status}</span>
              </th>
              <Cell label="Error codes">
                <Inline text={response.description} />
                {response.headers && Object.keys(response.headers).length > 0 && (
                  <>
                    {' '}
                    Headers:{' '}
                    <Inline
                      text={Object.keys(response.headers)
                        .map((name) => `\`${name}\``)
                        .join(', ')}
                    />
                    .
                  </>
                )}
              </Cell>
            </tr>
          ))}
        </Table>
      )}
    </article>
  );
}

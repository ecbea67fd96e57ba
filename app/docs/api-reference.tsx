/**
 * The API reference, rendered on the server from the OpenAPI document alone: what /docs shows
 * is what clients and linters read, and it needs no client JavaScript (search is a GET form).
 * `/docs` introduces the API and lists every domain; `/docs/<domain>` holds its operations and
 * objects.
 */
import type { ReactNode } from 'react';
import { isReference, type SecuritySchemeObject } from '@/server/openapi/types';
import { Cell, CodeBlock, FieldTable, Method, Table } from './components';
import { firstExample } from './examples';
import { Inline, Markdown } from './markdown';
import { OperationSection, schemeLabel } from './operation';
import { DOCS_PATH, errorCodesByStatus, schemaAnchor, searchReference, type Domain, type Reference } from './reference';
import { fieldRows, refName, resolveSchema } from './schema-rows';

function SearchForm({ query }: { query: string }) {
  return (
    <form className="docs-search" role="search" action={DOCS_PATH} method="get">
      <label htmlFor="docs-search-query">Search the reference</label>
      <div>
        <input id="docs-search-query" type="search" name="q" defaultValue={query} placeholder="refund, client_secret, 409…" />
        <button type="submit">Search</button>
      </div>
    </form>
  );
}

/** Every page: the header with search, the list of domains, the page's own content. */
function DocsShell({ reference, title, current, query = '', children }: { reference: Reference; title: string; current?: string; query?: string; children: ReactNode }) {
  const { document } = reference;
  return (
    <div className="docs">
      <a className="docs-skip" href="#docs-main">
        Skip to content
      </a>
      <header className="docs-header">
        <div>
          <p className="docs-eyebrow">
            <a href={DOCS_PATH}>API reference</a> · version {document.info.version}
          </p>
          <h1>{title}</h1>
          <p>
            OpenAPI {document.openapi} document: <a href={`${reference.pathPrefix}/openapi.json`}>{`${reference.pathPrefix}/openapi.json`}</a>
            {document.info.license && <> · {document.info.license.name} license</>}
          </p>
        </div>
        <SearchForm query={query} />
      </header>
      <div className="docs-layout">
        <nav className="docs-toc" aria-label="Domains">
          <h2 className="docs-toc-title">Reference</h2>
          <ul>
            <li>
              <a href={DOCS_PATH} aria-current={current === undefined ? 'page' : undefined}>
                Overview
              </a>
            </li>
            {reference.domains.map((domain) => (
              <li key={domain.slug}>
                <a href={`${DOCS_PATH}/${domain.slug}`} aria-current={current === domain.slug ? 'page' : undefined}>
                  {domain.name}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <main id="docs-main" className="docs-main" tabIndex={-1}>
          {children}
        </main>
      </div>
      <footer className="docs-footer">
        <p>Generated from the OpenAPI document the service serves; every operation lives under {reference.serverUrl}.</p>
      </footer>
    </div>
  );
}

function SearchResults({ reference, query }: { reference: Reference; query: string }) {
  const hits = searchReference(reference, query);
  return (
    <section aria-labelledby="search-results">
      <h2 id="search-results">
        {hits.length === 0 ? 'Nothing found' : `${hits.length} result${hits.length === 1 ? '' : 's'}`} for “{query}”
      </h2>
      {hits.length === 0 ? (
        <p>
          <Inline text="Try a shorter word: an object (`refund`), a field (`client_secret`), an error code (`price_inactive`)." />
        </p>
      ) : (
        <ul className="docs-hits">
          {hits.map((hit) => (
            <li key={`${hit.kind}-${hit.href}-${hit.title}`}>
              <span className="docs-hit-kind">{hit.kind}</span> <a href={hit.href}>{<Inline text={hit.title} />}</a>
              {hit.detail && (
                <>
                  {' '}
                  — <Inline text={hit.detail} />
                </>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** GET /docs: what the API is, how to authenticate, how it fails, and where each domain's page is. */
export function DocsIndex({ reference, query = '' }: { reference: Reference; query?: string }) {
  const { document } = reference;
  const schemes = Object.entries(document.components?.securitySchemes ?? {}).filter((entry): entry is [string, SecuritySchemeObject] => !isReference(entry[1]));
  const errorExample = firstExample(document, document.components?.schemas?.Error);
  return (
    <DocsShell reference={reference} title={document.info.title} query={query}>
      {query.trim() !== '' && <SearchResults reference={reference} query={query.trim()} />}
      <section aria-labelledby="introduction">
        <h2 id="introduction">Introduction</h2>
        <p>
          Base URL: <code>{reference.serverUrl}</code>
        </p>
        <Markdown text={document.info.description} />
        <p>
          Each operation shows a <code>curl</code> request and its answer. They read your secret key from <code>$SK</code> (<code>export SK=sk_test_…</code>) and, for the one call made from a browser,
          your publishable key from <code>$PK</code>.
        </p>
      </section>

      <section aria-labelledby="domains">
        <h2 id="domains">Domains</h2>
        <ul className="docs-domains">
          {reference.domains.map((domain) => (
            <li key={domain.slug}>
              <h3>
                <a href={`${DOCS_PATH}/${domain.slug}`}>{domain.name}</a>
              </h3>
              <Markdown text={domain.description} />
              <ul className="docs-domain-operations">
                {domain.operations.map(({ id, method, operation }) => (
                  <li key={id}>
                    <a href={`${DOCS_PATH}/${domain.slug}#${id}`}>
                      <Method method={method} /> {operation.summary ?? id}
                    </a>
                  </li>
                ))}
              </ul>
            </li>
          ))}
        </ul>
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
        {errorExample !== undefined && <CodeBlock label="Example error" code={JSON.stringify(errorExample, null, 2)} />}
        <div id={schemaAnchor('Error')}>
          <FieldTable caption="Fields of the error envelope" rows={fieldRows(document, { $ref: '#/components/schemas/Error' })} showRequired reference={reference} />
        </div>
        <Table caption="Error codes by HTTP status" columns={['Status', 'Codes']}>
          {errorCodesByStatus(document).map(([status, codes]) => (
            <tr key={status}>
              <th scope="row">{status}</th>
              <Cell label="Codes">
                <Inline text={codes.map((code) => `\`${code}\``).join(', ')} />
              </Cell>
            </tr>
          ))}
        </Table>
      </section>
    </DocsShell>
  );
}

/** An object's fields; a union's members (`Event`: one object per event type). */
function ObjectFields({ reference, name }: { reference: Reference; name: string }) {
  const { document } = reference;
  const rows = fieldRows(document, { $ref: `#/components/schemas/${name}` });
  const schema = resolveSchema(document, { $ref: `#/components/schemas/${name}` });
  const members = (schema?.oneOf ?? schema?.anyOf ?? []).filter(isReference).map((member) => refName(member.$ref));
  if (rows.length === 0 && members.length > 0) {
    return (
      <p>
        One of:{' '}
        {members.map((member, index) => (
          <span key={member}>
            {index > 0 && ', '}
            <a href={reference.schemaHref(member)}>{member}</a>
          </span>
        ))}
        .
      </p>
    );
  }
  return <FieldTable caption={`Fields of ${name}`} rows={rows} showRequired={false} reference={reference} />;
}

/** GET /docs/<domain>: its operations with their examples, then the objects they answer. */
export function DocsDomain({ reference, domain }: { reference: Reference; domain: Domain }) {
  const { document } = reference;
  return (
    <DocsShell reference={reference} title={domain.name} current={domain.slug}>
      <Markdown text={domain.description} />
      <nav className="docs-on-page" aria-label={`${domain.name}: on this page`}>
        <h2>On this page</h2>
        <ul>
          {domain.operations.map(({ id, method, operation }) => (
            <li key={id}>
              <a href={`#${id}`}>
                <Method method={method} /> {operation.summary ?? id}
              </a>
            </li>
          ))}
          {domain.schemas.length > 0 && (
            <li>
              <a href="#objects">Objects</a>:{' '}
              {domain.schemas.map((name, index) => (
                <span key={name}>
                  {index > 0 && ', '}
                  <a href={`#${schemaAnchor(name)}`}>{name}</a>
                </span>
              ))}
            </li>
          )}
        </ul>
      </nav>

      <section aria-labelledby="operations">
        <h2 id="operations">Operations</h2>
        {domain.operations.map((entry) => (
          <OperationSection key={entry.id} reference={reference} entry={entry} />
        ))}
      </section>

      {domain.schemas.length > 0 && (
        <section aria-labelledby="objects">
          <h2 id="objects">Objects</h2>
          {domain.schemas.map((name) => {
            const schema = document.components?.schemas?.[name];
            const example = firstExample(document, schema);
            return (
              <article key={name} id={schemaAnchor(name)} className="docs-object" aria-labelledby={`${schemaAnchor(name)}-title`}>
                <h3 id={`${schemaAnchor(name)}-title`}>{name}</h3>
                {schema && !isReference(schema) && <Markdown text={schema.description} />}
                <ObjectFields reference={reference} name={name} />
                {example !== undefined && (
                  <details className="docs-object-example">
                    <summary>Example {name}</summary>
                    <CodeBlock label={`Example ${name}`} code={JSON.stringify(example, null, 2)} />
                  </details>
                )}
              </article>
            );
          })}
        </section>
      )}
    </DocsShell>
  );
}

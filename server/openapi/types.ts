/**
 * OpenAPI 3.1 object types, taken from the document type trpc-to-openapi returns so they
 * always match what it generates (its own model package is not a dependency of ours).
 */
import type { OpenAPIObject } from 'trpc-to-openapi';

export type { OpenAPIObject };
type Components = NonNullable<OpenAPIObject['components']>;
type Resolved<T> = Exclude<T, { $ref: string }>;

export type ReferenceObject = Extract<NonNullable<Components['schemas']>[string], { $ref: string }>;
export type SchemaObject = Resolved<NonNullable<Components['schemas']>[string]>;
export type ResponseObject = Resolved<NonNullable<Components['responses']>[string]>;
export type ParameterObject = Resolved<NonNullable<Components['parameters']>[string]>;
export type SecuritySchemeObject = Resolved<NonNullable<Components['securitySchemes']>[string]>;
export type PathItemObject = NonNullable<OpenAPIObject['paths']>[string];
export type OperationObject = NonNullable<PathItemObject['get']>;

export const HTTP_METHODS = ['get', 'post', 'patch', 'put', 'delete'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export function isReference(value: object): value is { $ref: string } {
  return '$ref' in value && typeof value.$ref === 'string';
}

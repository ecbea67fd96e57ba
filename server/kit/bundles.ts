/**
 * Next bundles the server code into several chunks, each with its own copy of a class, while the
 * app's services are one singleton on `globalThis` (server/app.ts): an error its gateway or rate
 * limiter throws is an instance of whichever chunk's copy built it, and a plain `instanceof` in
 * another chunk says no. A class marked here is recognized by a registered symbol on its
 * prototype instead, so `instanceof` holds across copies.
 */
export function recognizeAcrossBundles(cls: abstract new (...args: never[]) => object, name: string): void {
  const brand = Symbol.for(`payments-service:${name}`);
  Object.defineProperty(cls.prototype, brand, { value: true });
  // Inherited by subclasses, so mark only classes nothing extends.
  Object.defineProperty(cls, Symbol.hasInstance, {
    value: (value: unknown) => typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[brand] === true,
  });
}

// Objects keyed by names a user chose (a document's fields, facet values, facet and field names):
// `__proto__`, `constructor`, `toString` and every other name Object.prototype answers to are names like
// any other. Written as own data properties (JSON.parse's way: `__proto__` never sets the prototype) and
// read as own properties only (an absent `constructor` is absent, not Object's constructor).

/** An own data property, as JSON.parse makes it. */
export function setOwn<T>(object: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__') Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
  else object[key] = value;
}

/** The object's own property, undefined when it has none (never an inherited one). */
export function ownValue<T>(object: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

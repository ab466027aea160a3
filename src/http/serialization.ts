import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;
type Serializer = ReturnType<ReturnType<SerializerFactory>>;

const defaultFactory = SerializerSelector();

/**
 * Response serializers, compiled once per process for each response schema (a module's constant) and
 * shared by every app the process builds: fast-json-stringify's compilation is most of what building
 * an app costs (≈ 400 ms of CPU for the whole API), and the test suite builds an app per server it
 * starts. The shared schemas every app adds (`app.addSchema`) are the same constants too, so their ids
 * are part of the key rather than their contents.
 */
const compiled = new WeakMap<object, Map<string, Serializer>>();

export const responseSerializers: SerializerFactory = (externalSchemas, options) => {
  const compile = defaultFactory(externalSchemas, options);
  const shared =
    typeof externalSchemas === 'object' && externalSchemas !== null
      ? Object.keys(externalSchemas).sort().join(',')
      : '';
  return (route) => {
    const { schema } = route;
    if (typeof schema !== 'object' || schema === null) return compile(route);
    const key = `${route.httpStatus} ${(route as { contentType?: string }).contentType ?? ''} ${shared}`;
    let byKey = compiled.get(schema);
    const known = byKey?.get(key);
    if (known) return known;
    const serializer = compile(route);
    if (!byKey) compiled.set(schema, (byKey = new Map()));
    byKey.set(key, serializer);
    return serializer;
  };
};

#!/usr/bin/env node
/**
 * Writes the JSON Schema of every endpoint's response (the envelope's `data`) to
 * `packages/protocol/src/responses.json`, read by the OpenAPI document (CONTRACT §12).
 *
 * The responses are TypeScript types in the protocol's endpoint table (`returns<T>()`), the types the
 * server's handlers are compiled against; the compiler's own view of each row's `response` is walked
 * here, so the document says what the code answers. The file records a hash of the protocol's sources and
 * of this script: `--check` (run by `npm run typecheck`) fails at once when they changed since it was
 * written, without the 8 s the compiler takes to write it again.
 *
 * A general TypeScript-to-JSON-Schema generator was tried first: it reads declarations, not the
 * checker's types, and cannot follow a row's type through `endpointGroup(…)` and `returns<T>()`.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const protocol = join(root, 'packages/protocol');
export const responsesFile = join(protocol, 'src/responses.json');

/** The protocol's TypeScript sources and this script, hashed: what the file was written from. */
export function sourcesHash() {
  const hash = createHash('sha256');
  const sources = join(protocol, 'src');
  for (const name of readdirSync(sources)
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .sort()) {
    hash.update(`${name}\0`).update(readFileSync(join(sources, name)));
  }
  hash.update(readFileSync(fileURLToPath(import.meta.url)));
  return hash.digest('hex');
}

/** The schemas of every non-raw endpoint's `data`, named types shared under `schemas`. */
export function generateResponseSchemas() {
  const configPath = join(protocol, 'tsconfig.json');
  const config = ts.getParsedCommandLineOfConfigFile(configPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic() {} });
  if (!config) throw new Error(`cannot read ${configPath}`);
  const program = ts.createProgram({ rootNames: config.fileNames, options: { ...config.options, noEmit: true } });
  const checker = program.getTypeChecker();
  const index = program.getSourceFile(join(protocol, 'src/index.ts'));
  if (!index) throw new Error('packages/protocol/src/index.ts is not in the program');
  const moduleSymbol = checker.getSymbolAtLocation(index);
  const table = checker.getExportsOfModule(moduleSymbol).find((symbol) => symbol.name === 'endpoints');
  if (!table) throw new Error('the protocol exports no `endpoints` table');
  const tableType = checker.getTypeOfSymbol(table);

  const schemas = {};
  const naming = new Map(); // type id → component name, set before its schema is built (recursion)

  const describe = (symbol) => ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim();

  /** A component name for a named object type: `Visitor`, `ListData<Role>` → `ListData_Role`. */
  function nameOf(type) {
    const alias = type.aliasSymbol;
    const symbol = alias ?? type.getSymbol();
    if (!symbol || symbol.name.startsWith('__')) return undefined;
    // The standard library's helpers (`Record<K, V>`, `Partial<T>`) read better inline than as components.
    if (symbol.declarations?.some((declaration) => program.isSourceFileDefaultLibrary(declaration.getSourceFile()))) return undefined;
    if (!(symbol.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias | ts.SymbolFlags.Class))) return undefined;
    const args = alias ? (type.aliasTypeArguments ?? []) : (checker.getTypeArguments?.(type) ?? type.typeArguments ?? []);
    const suffix = args.map((arg) => checker.typeToString(arg).replace(/\W+/g, '')).filter(Boolean);
    return [symbol.name, ...suffix].join('_');
  }

  function objectSchema(type) {
    const properties = {};
    const required = [];
    for (const property of checker.getPropertiesOfType(type)) {
      const declaration = property.valueDeclaration ?? property.declarations?.[0];
      const propertyType = declaration ? checker.getTypeOfSymbolAtLocation(property, declaration) : checker.getTypeOfSymbol(property);
      if (propertyType.getCallSignatures().length > 0) continue;
      const optional = (property.flags & ts.SymbolFlags.Optional) !== 0;
      const schema = toSchema(optional ? withoutUndefined(propertyType) : propertyType);
      const description = describe(property);
      properties[property.name] = description && !schema.$ref ? { ...schema, description } : schema;
      if (!optional) required.push(property.name);
    }
    const schema = { type: 'object', properties };
    if (required.length > 0) schema.required = required;
    const indexType = checker.getIndexTypeOfType(type, ts.IndexKind.String) ?? checker.getIndexTypeOfType(type, ts.IndexKind.Number);
    schema.additionalProperties = indexType ? toSchema(indexType) : false;
    return schema;
  }

  /** `T | undefined` as T: an optional property's own `undefined` is its absence, not a value. */
  function withoutUndefined(type) {
    if (!type.isUnion()) return type;
    const kept = type.types.filter((member) => !(member.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void)));
    if (kept.length === type.types.length) return type;
    return kept.length === 1 ? kept[0] : { unionOf: kept };
  }

  function unionSchema(members) {
    const present = members.filter((member) => !(member.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void)));
    const nullable = present.some((member) => member.flags & ts.TypeFlags.Null);
    const rest = present.filter((member) => !(member.flags & ts.TypeFlags.Null));
    const booleans = rest.filter((member) => member.flags & ts.TypeFlags.BooleanLiteral);
    const others = booleans.length === 2 ? rest.filter((member) => !(member.flags & ts.TypeFlags.BooleanLiteral)) : rest;
    const options = [];
    if (booleans.length === 2) options.push({ type: 'boolean' });
    const literals = others.filter((member) => member.isStringLiteral() || member.isNumberLiteral());
    if (literals.length > 1) options.push({ enum: literals.map((member) => member.value) });
    for (const member of literals.length > 1 ? others.filter((member) => !literals.includes(member)) : others)
      options.push(toSchema(member));
    if (nullable) options.push({ type: 'null' });
    if (options.length === 0) return { type: 'null' };
    if (options.length === 1) return options[0];
    return { anyOf: options };
  }

  function toSchema(type) {
    if (type.unionOf) return unionSchema(type.unionOf);
    const flags = type.flags;
    if (flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return {};
    if (flags & (ts.TypeFlags.Void | ts.TypeFlags.Undefined | ts.TypeFlags.Null)) return { type: 'null' };
    if (flags & ts.TypeFlags.StringLiteral) return { type: 'string', const: type.value };
    if (flags & ts.TypeFlags.NumberLiteral) return { type: 'number', const: type.value };
    if (flags & ts.TypeFlags.BooleanLiteral) return { type: 'boolean', const: checker.typeToString(type) === 'true' };
    if (flags & ts.TypeFlags.String || flags & ts.TypeFlags.TemplateLiteral) return { type: 'string' };
    if (flags & ts.TypeFlags.Number) return { type: 'number' };
    if (flags & ts.TypeFlags.Boolean) return { type: 'boolean' };
    if (flags & ts.TypeFlags.EnumLiteral && type.isUnion()) return unionSchema(type.types);
    if (type.isUnion()) {
      const name = type.aliasSymbol && nameOf(type);
      if (!name) return unionSchema(type.types);
      if (!schemas[name]) {
        schemas[name] = {};
        schemas[name] = unionSchema(type.types);
      }
      return { $ref: `#/components/schemas/${name}` };
    }
    if (checker.isArrayType(type)) return { type: 'array', items: toSchema(checker.getTypeArguments(type)[0]) };
    if (checker.isTupleType(type)) {
      const items = checker.getTypeArguments(type).map(toSchema);
      return { type: 'array', prefixItems: items, minItems: items.length, maxItems: items.length };
    }
    if (type.isIntersection() || flags & ts.TypeFlags.Object) {
      const name = nameOf(type);
      if (!name) return objectSchema(type);
      const known = naming.get(type.id);
      if (known) return { $ref: `#/components/schemas/${known}` };
      naming.set(type.id, name);
      if (!schemas[name]) {
        schemas[name] = {};
        const schema = objectSchema(type);
        const symbol = type.aliasSymbol ?? type.getSymbol();
        const description = symbol ? describe(symbol) : '';
        schemas[name] = description ? { description, ...schema } : schema;
      }
      return { $ref: `#/components/schemas/${name}` };
    }
    throw new Error(`no JSON Schema for the type ${checker.typeToString(type)}`);
  }

  const responses = {};
  for (const row of checker.getPropertiesOfType(tableType).sort((a, b) => a.name.localeCompare(b.name))) {
    const rowType = checker.getTypeOfSymbol(row);
    if (checker.getPropertyOfType(rowType, 'raw')) continue;
    const response = checker.getPropertyOfType(rowType, 'response');
    if (!response) throw new Error(`${row.name} has no response type`);
    responses[row.name] = toSchema(checker.getTypeOfSymbol(response));
  }
  const sortedSchemas = Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b)));
  return { from: sourcesHash(), schemas: sortedSchemas, responses };
}

function serialise(value) {
  return `${JSON.stringify(value, null, 2)}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--check')) {
    let written = '';
    try {
      written = JSON.parse(readFileSync(responsesFile, 'utf8')).from;
    } catch {}
    if (written !== sourcesHash()) {
      console.error('packages/protocol/src/responses.json is out of date: run node scripts/response-schemas.mjs');
      process.exit(1);
    }
  } else {
    writeFileSync(responsesFile, serialise(generateResponseSchemas()));
    console.log(`wrote ${responsesFile}`);
  }
}

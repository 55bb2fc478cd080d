// Keeps the architecture the design describes true of the code: data flows one way between the folders
// of src/ (no import against the flow, no cycle between folders, type-only imports included), metrics/
// and report/ do no I/O, only hosts/ runs processes, and only client/ speaks HTTP to a target. Reads the
// sources with the TypeScript parser, so comments and strings never count as imports.

import { dirname, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { folderOf, isTestCode, productSources, ROOT, type SourceFile } from './test-support/source-tree.js';

/** What session/ may import (it prepares a target and sweeps it): everything below it but report/. */
const BELOW_SESSION = [
  ...['core', 'records', 'engines', 'plan', 'hosts', 'client', 'metrics'],
  ...['sim', 'checkpoint', 'load', 'results'],
];

/** Folders of src/, each with the folders it may import (its own is always allowed). */
const ALLOWED: Record<string, readonly string[] | 'anything'> = {
  core: [],
  records: ['core'],
  // engines/ sits below client/ and metrics/: it declares the TargetHttp interface and the counter
  // shapes that client/ implements and metrics/ reads, and imports nothing but core/.
  engines: ['core', 'records'],
  plan: ['core', 'records'],
  hosts: ['core', 'records'],
  client: ['core', 'records', 'engines'],
  metrics: ['core', 'records', 'engines'],
  // The simulator is a stand-alone server: it shares nothing with the client it is measured by.
  sim: ['core'],
  checkpoint: ['core', 'records', 'engines', 'plan', 'hosts', 'client', 'metrics'],
  // load/ turns a plan into request records (the flow: load → records → summaries → run store).
  load: ['core', 'records', 'engines', 'plan', 'hosts', 'client'],
  // results/ stores runs; a manifest carries the checkpoint report and summaries.
  results: ['core', 'records', 'engines', 'plan', 'hosts', 'client', 'metrics', 'checkpoint'],
  // report/ reads stored runs (results/layout.ts shapes) and never writes them.
  report: ['core', 'records', 'engines', 'plan', 'metrics', 'results'],
  session: BELOW_SESSION,
  matrix: [...BELOW_SESSION, 'report', 'session'],
  // k8s/ renders the Kubernetes objects that run a plan as shards: it reads plans, nothing runs it but cli/.
  k8s: ['core', 'records', 'plan'],
  // store/ indexes run directories into an embedded database; it judges runs with report/'s rules.
  store: [...BELOW_SESSION, 'report'],
  // serve/ is the local dashboard over the store: it renders with report/ and reads live run directories.
  serve: [...BELOW_SESSION, 'report', 'store'],
  cli: [...BELOW_SESSION, 'report', 'session', 'matrix', 'k8s', 'store', 'serve'],
  bench: 'anything',
  /** src/index.ts, the library's public surface. */
  '(root)': 'anything',
};

/** Node modules that read or write files, sockets or processes. */
const IO_MODULES = ['fs', 'fs/promises', 'net', 'http', 'https', 'http2', 'tls', 'dgram', 'child_process'];
const PURE_FOLDERS = ['metrics', 'report'];
/** Folders that may run processes (bench/ is the benchmark scripts, which start their own children). */
const PROCESS_FOLDERS = ['hosts', 'bench'];
/** Folders that may send HTTP requests to a target (bench/ measures the client against other clients). */
const HTTP_CLIENT_FOLDERS = ['client', 'bench'];

interface ImportEdge {
  /** Importing file, relative to the repository root (src/…). */
  from: string;
  specifier: string;
  /** Imported file relative to the repository root, for imports of our own files. */
  to: string | null;
  line: number;
}

/** Every module specifier in a file: import/export declarations (type-only too), import() and import('x').T types. */
function importEdges(file: SourceFile): ImportEdge[] {
  const edges: ImportEdge[] = [];
  const add = (literal: ts.Node) => {
    if (!ts.isStringLiteralLike(literal)) return;
    const specifier = literal.text;
    const to = specifier.startsWith('.')
      ? relative(ROOT, resolve(ROOT, dirname(file.rel), specifier))
          .split('\\')
          .join('/')
          .replace(/\.js$/, '.ts')
      : null;
    const line = file.ast.getLineAndCharacterOfPosition(literal.getStart()).line + 1;
    edges.push({ from: file.rel, specifier, to, line });
  };
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier)
      add(node.moduleSpecifier);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
      add(node.moduleReference.expression);
    else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0]
    )
      add(node.arguments[0]);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal);
    ts.forEachChild(node, visit);
  };
  visit(file.ast);
  return edges;
}

const edges = productSources.flatMap(importEdges);
const ownEdges = edges.filter((e) => e.to !== null);

const nodeModule = (specifier: string): string | null =>
  specifier.startsWith('node:')
    ? specifier.slice('node:'.length)
    : IO_MODULES.includes(specifier)
      ? specifier
      : null;

const where = (e: ImportEdge) => `${e.from}:${e.line} imports '${e.specifier}'`;

/** The shortest path from a component's first folder back to itself, folders in order (first repeated last). */
function shortestLoop(graph: Map<string, Set<string>>, component: string[]): string[] {
  const start = component[0];
  const queue: string[][] = [[start]];
  while (queue.length > 0) {
    const path = queue.shift()!;
    for (const next of graph.get(path[path.length - 1]) ?? []) {
      if (next === start) return [...path, start];
      if (component.includes(next) && !path.includes(next)) queue.push([...path, next]);
    }
  }
  return component;
}

/** Folder-level strongly connected components with more than one folder (Tarjan). */
function folderCycles(graph: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const strongConnect = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        strongConnect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) strongConnect(v);
  return cycles;
}

describe('the one-way flow between the folders of src/', () => {
  it('reads a real source tree', () => {
    // fail closed: a scan that found nothing would pass every rule below
    expect(productSources.length).toBeGreaterThan(100);
    expect(ownEdges.length).toBeGreaterThan(300);
  });

  it('knows every folder', () => {
    const unknown = [...new Set(productSources.map((f) => folderOf(f.rel)))].filter((f) => !(f in ALLOWED));
    expect(unknown, 'a new folder under src/ needs its row in ALLOWED (src/architecture.test.ts)').toEqual(
      [],
    );
  });

  it('imports only from folders lower in the flow', () => {
    const broken = ownEdges.flatMap((e) => {
      const from = folderOf(e.from);
      const to = folderOf(e.to!);
      const allowed = ALLOWED[from];
      if (from === to || allowed === 'anything' || allowed?.includes(to)) return [];
      return [
        `${where(e)}: ${from}/ may import ${allowed?.length ? `only ${allowed.map((a) => `${a}/`).join(', ')}` : 'nothing of ours'}, not ${to}/`,
      ];
    });
    expect(broken).toEqual([]);
  });

  it('has no cycle between folders, type-only imports included', () => {
    const graph = new Map<string, Set<string>>();
    for (const e of ownEdges) {
      const from = folderOf(e.from);
      const to = folderOf(e.to!);
      if (from !== to) graph.set(from, (graph.get(from) ?? new Set()).add(to));
    }
    const described = folderCycles(graph).map((component) => {
      const loop = shortestLoop(graph, component);
      const steps = loop.slice(0, -1).map((from, i) => {
        const example = ownEdges.find((e) => folderOf(e.from) === from && folderOf(e.to!) === loop[i + 1])!;
        return `${from}/ → ${loop[i + 1]}/ (${where(example)})`;
      });
      return `cycle between folders: ${steps.join('; ')}`;
    });
    expect(described).toEqual([]);
  });

  it('names folders in the table that can only form a flow (the table itself has no cycle)', () => {
    const graph = new Map<string, Set<string>>();
    for (const [from, allowed] of Object.entries(ALLOWED))
      if (allowed !== 'anything') graph.set(from, new Set(allowed));
    expect(folderCycles(graph)).toEqual([]);
  });

  it('resolves every import of our own files to a file that exists', () => {
    const known = new Set(productSources.map((f) => f.rel));
    const missing = ownEdges.filter((e) => !known.has(e.to!) && !isTestCode(e.to!)).map(where);
    expect(missing).toEqual([]);
  });
});

describe('where I/O happens', () => {
  const nodeImports = edges.flatMap((e) => {
    const mod = nodeModule(e.specifier);
    return mod ? [{ ...e, mod }] : [];
  });

  it('metrics/ and report/ import no module that does I/O, directly or through what they import', () => {
    // Runtime and type-only imports alike: a pure folder has no reason to name an I/O module at all.
    const byFile = new Map<string, ImportEdge[]>();
    for (const e of ownEdges) byFile.set(e.from, [...(byFile.get(e.from) ?? []), e]);
    const io = new Map(
      nodeImports.filter((e) => IO_MODULES.includes(e.mod)).map((e) => [e.from, e] as const),
    );
    const broken: string[] = [];
    for (const file of productSources.filter((f) => PURE_FOLDERS.includes(folderOf(f.rel)))) {
      const seen = new Set<string>([file.rel]);
      const queue: string[][] = [[file.rel]];
      while (queue.length > 0) {
        const path = queue.shift()!;
        const at = path[path.length - 1];
        const direct = io.get(at);
        if (direct) {
          broken.push(
            `${file.rel}: ${PURE_FOLDERS.join('/ and ')}/ do no I/O, but ${[...path.slice(1), `'${direct.specifier}'`].join(' → ')} (${where(direct)})`,
          );
          break;
        }
        for (const e of byFile.get(at) ?? [])
          if (!seen.has(e.to!)) {
            seen.add(e.to!);
            queue.push([...path, e.to!]);
          }
      }
    }
    expect(broken).toEqual([]);
  });

  it('only hosts/ runs processes', () => {
    const broken = nodeImports
      .filter((e) => e.mod === 'child_process' && !PROCESS_FOLDERS.includes(folderOf(e.from)))
      .map((e) => `${where(e)}: only hosts/ runs processes (the Host interface)`);
    expect(broken).toEqual([]);
  });

  it('only client/ sends HTTP requests to a target', () => {
    const broken = productSources
      .filter((f) => !HTTP_CLIENT_FOLDERS.includes(folderOf(f.rel)))
      .flatMap((f) => httpClientCalls(f).map((call) => `${call}: only client/ speaks HTTP to a target`));
    expect(broken).toEqual([]);
  });
});

/**
 * Calls that open a client connection: fetch(), request/get of node:http(s), connect/createConnection
 * of node:net and node:tls, and any import of undici. Servers (createServer, listen) are not clients.
 */
function httpClientCalls(file: SourceFile): string[] {
  const clientModules = ['http', 'https', 'net', 'tls', 'http2'];
  const clientFunctions = ['request', 'get', 'connect', 'createConnection'];
  const namespaces = new Set<string>();
  const named = new Set<string>();
  const found: string[] = [];
  const at = (node: ts.Node) =>
    `${file.rel}:${file.ast.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  for (const stmt of file.ast.statements) {
    if (!ts.isImportDeclaration(stmt) || !ts.isStringLiteral(stmt.moduleSpecifier)) continue;
    const spec = stmt.moduleSpecifier.text;
    if (spec === 'undici' || spec.startsWith('undici/')) found.push(`${at(stmt)} imports '${spec}'`);
    const mod = nodeModule(spec);
    const clause = stmt.importClause;
    if (!mod || !clientModules.includes(mod) || !clause) continue;
    if (clause.name) namespaces.add(clause.name.text);
    const bindings = clause.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings)) namespaces.add(bindings.name.text);
    if (bindings && ts.isNamedImports(bindings))
      for (const el of bindings.elements)
        if (clientFunctions.includes((el.propertyName ?? el.name).text)) named.add(el.name.text);
  }
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
      const callee = node.expression;
      if (ts.isIdentifier(callee) && (callee.text === 'fetch' || named.has(callee.text)))
        found.push(`${at(node)} calls ${callee.text}()`);
      if (
        ts.isPropertyAccessExpression(callee) &&
        ts.isIdentifier(callee.expression) &&
        namespaces.has(callee.expression.text) &&
        clientFunctions.includes(callee.name.text)
      )
        found.push(`${at(node)} calls ${callee.expression.text}.${callee.name.text}()`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file.ast);
  return found;
}

// The module graph of src/ as its files' imports give it (type-only imports included).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import ts from 'typescript';

export const SRC = join(import.meta.dirname, '../../src');

export function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

export function importsOf(file: string): string[] {
  return ts
    .preProcessFile(readFileSync(file, 'utf8'), true, true)
    .importedFiles.map((i) => i.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => {
      const target = join(dirname(file), name.replace(/\.js$/, '.ts'));
      return existsSync(target) ? target : join(dirname(file), name, 'index.ts');
    });
}

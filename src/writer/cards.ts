// Emulated cards of `tapproof writer --reader emulator` and `tapproof emulator …`: one JSON file
// per tag in the data dir (the card's keys, files and counter, as a real chip would keep them).
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ntag424Card, type CardState } from '../chips/index.js';

export function cardPath(dataDir: string, tagId: string): string {
  if (!/^[A-Za-z0-9_]+$/.test(tagId)) throw new Error(`not a tag id: ${tagId}`);
  return join(dataDir, 'emulated-cards', `${tagId}.json`);
}

export function loadCard(dataDir: string, tagId: string): Ntag424Card | null {
  const path = cardPath(dataDir, tagId);
  if (!existsSync(path)) return null;
  return Ntag424Card.deserialize(JSON.parse(readFileSync(path, 'utf8')) as CardState);
}

/** Written to a temporary file and renamed: a crash never leaves half a card. */
export function saveCard(dataDir: string, tagId: string, card: Ntag424Card): void {
  const path = cardPath(dataDir, tagId);
  mkdirSync(join(dataDir, 'emulated-cards'), { recursive: true, mode: 0o700 });
  writeFileSync(`${path}.tmp`, JSON.stringify(card.serialize()), { mode: 0o600 });
  renameSync(`${path}.tmp`, path);
}

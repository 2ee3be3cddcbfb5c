// Which tag urls `tapproof writer` warns about before writing them: what a phone opens from a tap. The
// console warns by its own copy of the rule (it imports nothing from the server): both answer every case.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { phoneCanOpen as writerRule } from '../../src/writer/cli.js';
import { phoneCanOpen as consoleRule } from '../../packages/console/src/urls.js';

const phoneCanOpen = (url: string): boolean => {
  assert.equal(consoleRule(url), writerRule(url), `the console and the writer disagree on ${JSON.stringify(url)}`);
  return writerRule(url);
};

test('an http(s) URL with a host is one a phone opens', () => {
  for (const url of [
    'https://brand.example/i/42',
    'http://brand.example',
    'HTTPS://Brand.Example/x?a=1',
    'https://192.0.2.7:8443/p',
    'https://[2001:db8::1]/p',
  ])
    assert.equal(phoneCanOpen(url), true, url);
});

test('anything else is not: no scheme, another scheme, no host, a missing slash, blanks', () => {
  for (const url of [
    'not-a-url',
    'brand.example/i/42',
    'ftp://files.example/a',
    'mailto:a@b.example',
    'https://',
    'https:/brand.example',
    ' https://brand.example',
    'https://brand.example/a b',
    'https://brand.example/\n',
    '',
  ])
    assert.equal(phoneCanOpen(url), false, JSON.stringify(url));
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultLayout, readSdmPart, type ChipLayout } from '../../src/chips/url-layout.js';

const PICC = 'EF963FF7828658A599F3041510671E88';
const ENC = '94592FDE69FA06E8E3B6CA686A22842B';
const MAC = '94EED9EE65337086';
const base = 'https://brand.example/p/1';

test('a TagTamper URL yields its values and a MAC input that starts at the enc value', () => {
  const url = `${base}?picc_data=${PICC}&enc=${ENC}&cmac=${MAC}`;
  const sdm = readSdmPart(defaultLayout('ntag_424_dna_tag_tamper'), url, base.length + 1);
  assert.deepEqual(sdm, { values: { picc_data: PICC, enc: ENC, cmac: MAC }, macInput: `${ENC}&cmac=` });
});

test('encrypted file data outside the MAC input is refused (its tamper status would be unauthenticated)', () => {
  const layout: ChipLayout = { ...defaultLayout('ntag_424_dna_tag_tamper'), macInputFrom: 'picc_data' };
  // enc after cmac: the MAC input picc_data..cmac does not cover it.
  const after = `${base}?picc_data=${PICC}&cmac=${MAC}&enc=${ENC}`;
  assert.equal(readSdmPart(layout, after, base.length + 1), null);
  const noMacInput: ChipLayout = { ...defaultLayout('ntag_424_dna_tag_tamper'), macInputFrom: null };
  assert.equal(readSdmPart(noMacInput, `${base}?picc_data=${PICC}&enc=${ENC}&cmac=${MAC}`, base.length + 1), null);
  // Covered from picc_data onwards: accepted.
  const covered = readSdmPart(layout, `${base}?picc_data=${PICC}&enc=${ENC}&cmac=${MAC}`, base.length + 1);
  assert.equal(covered?.macInput, `${PICC}&enc=${ENC}&cmac=`);
});

test("a parameter the layout does not know, or one given twice, is not this chip's URL", () => {
  const layout = defaultLayout('ntag_424_dna');
  assert.equal(readSdmPart(layout, `${base}?picc_data=${PICC}&cmac=${MAC}&x=1`, base.length + 1), null);
  assert.equal(readSdmPart(layout, `${base}?picc_data=${PICC}&picc_data=${PICC}&cmac=${MAC}`, base.length + 1), null);
});

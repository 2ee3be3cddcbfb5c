// The verification reasons the API answers with (GET /verifications ?reason=), in the console's order,
// each with a line for people and a chart colour.
export const REASONS = ['ok', 'replayed', 'bad_cmac', 'bad_picc_data', 'uid_mismatch'] as const;
export type Reason = (typeof REASONS)[number];

export const REASON_LABELS: Record<Reason, string> = {
  ok: 'Genuine',
  replayed: 'Replayed',
  bad_cmac: 'Bad CMAC',
  bad_picc_data: 'Bad PICC data',
  uid_mismatch: 'UID mismatch',
};

export const REASON_COLORS: Record<Reason, string> = {
  ok: '#1a7f37',
  replayed: '#9a6700',
  bad_cmac: '#cf222e',
  bad_picc_data: '#8250df',
  uid_mismatch: '#0969da',
};

/** The NXP chips a tag can be written onto. */
export const PROTOCOLS = ['ntag_424_dna', 'ntag_424_dna_tag_tamper', 'ntag_223_dna'] as const;
export type Protocol = (typeof PROTOCOLS)[number];

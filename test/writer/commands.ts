// The commands of a write or a rekey by INS, as the fault tests name and count them.

/** The probe (11 commands) and AuthenticateEV2First part 2 that open both a personalization and a rekey of a 424. */
export const PROBE_AND_AUTH: [number, string][] = [
  [0xa4, 'ISOSelectFile'],
  [0x60, 'GetVersion'],
  [0xaf, 'GetVersion AF 1'],
  [0xaf, 'GetVersion AF 2'],
  [0x3c, 'Read_Sig'],
  [0x64, 'GetKeyVersion 0'],
  [0x64, 'GetKeyVersion 1'],
  [0x64, 'GetKeyVersion 2'],
  [0x64, 'GetKeyVersion 3'],
  [0x64, 'GetKeyVersion 4'],
  [0x71, 'AuthenticateEV2First part 1'],
  [0xaf, 'AuthenticateEV2First part 2'],
];

/** Each command with how many of the same INS come before it: the fault card's way to pick one. */
export function commandSteps(names: [number, string][]): { ins: number; skip: number; name: string }[] {
  const seen = new Map<number, number>();
  return names.map(([ins, name]) => {
    const skip = seen.get(ins) ?? 0;
    seen.set(ins, skip + 1);
    return { ins, skip, name };
  });
}

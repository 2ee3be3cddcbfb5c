// Whether a phone that taps a chip can open a tag's url. The API writes any url as given (the contract
// lets the caller choose it), so the console only warns. The rule is the writer's (src/writer/cli.ts):
// an http(s) URL with a host, written as such, since a phone reads the NDEF record as it stands,
// without a browser's fixing up of spaces or a missing `//`.
export function phoneCanOpen(url: string): boolean {
  if (!/^https?:\/\//i.test(url) || /[\s\p{Cc}]/u.test(url)) return false;
  try {
    return new URL(url).hostname !== '';
  } catch {
    return false;
  }
}

export const UNOPENABLE = 'not an http(s) URL a phone can open: a phone that taps the chip opens nothing';

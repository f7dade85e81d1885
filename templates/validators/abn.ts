// ABN check digits (opt-in strict mode only; the service accepts any 11 digits, the service's specification, section 7, 8).
// The ATO's published algorithm: subtract 1 from the first digit, weight the digits
// 10 1 3 5 7 9 11 13 15 17 19, and the sum must be divisible by 89.

const WEIGHTS: readonly number[] = [10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19];

/** True when an 11-digit ABN has valid check digits; false for anything else. */
export function abnChecksum(abn: string): boolean {
  if (abn.length !== 11) return false;
  let sum = 0;
  for (let i = 0; i < 11; i++) {
    const digit = abn.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return false;
    sum += (i === 0 ? digit - 1 : digit) * WEIGHTS[i]!;
  }
  return sum % 89 === 0;
}

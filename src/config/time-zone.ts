/** Whether `timeZone` is an IANA zone name this runtime knows (`UTC`, `Europe/Berlin`). */
export function isTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

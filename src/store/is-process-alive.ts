import { readFileSync } from 'node:fs';
import { fieldOf } from '../validation/field-of.js';

/** Whether a process with this pid exists and has not exited (a zombie counts as gone). */
export function isProcessAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
  } catch (error) {
    return fieldOf(error, 'code') === 'EPERM';
  }
  try {
    // Linux: field 3 of /proc/<pid>/stat is the state; Z is a zombie (exited, not yet reaped).
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

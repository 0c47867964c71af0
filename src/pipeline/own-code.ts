import { ownFault } from '../errors/gateway-error.js';

/** Runs the gateway's own mapping code: what it throws, other than a GatewayError, is an internal_error (decision 22). */
export function ownCode<T>(map: () => T): T {
  try {
    return map();
  } catch (error) {
    throw ownFault(error);
  }
}

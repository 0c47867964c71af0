import type { GatewayConfig } from '../config/gateway-config.js';
import { createRateLimiter, type RateLimiter } from '../limits/rate-limiter.js';
import type { Logger } from '../observability/logger.js';

/** The rate limiter of a configuration, started (connected to Redis when one is configured). */
export async function startLimiter(config: GatewayConfig, logger: Logger): Promise<RateLimiter> {
  const limiter = createRateLimiter({ settings: config.limits, redisUrl: config.redis, logger });
  await limiter.start();
  return limiter;
}

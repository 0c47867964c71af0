import type { Language } from '../errors/codes.js';

/**
 * Russian when Accept-Language ranks `ru` above English (PRODUCT.md decision 10),
 * English otherwise. Only the quality of `ru*` and `en*` ranges is compared.
 */
export function preferredLanguage(header: string | undefined): Language {
  if (header === undefined || !header.toLowerCase().includes('ru')) return 'en';
  let russian = -1;
  let english = -1;
  let wildcard = -1;
  for (const part of header.toLowerCase().split(',')) {
    const [range = '', ...parameters] = part.trim().split(';');
    const qualityParameter = parameters
      .map((parameter) => parameter.trim())
      .find((parameter) => parameter.startsWith('q='));
    const quality = qualityParameter === undefined ? 1 : Number(qualityParameter.slice(2)) || 0;
    if (range === 'ru' || range.startsWith('ru-')) russian = Math.max(russian, quality);
    else if (range === 'en' || range.startsWith('en-')) english = Math.max(english, quality);
    else if (range === '*') wildcard = quality;
  }
  if (english === -1) english = wildcard;
  return russian > 0 && russian > english ? 'ru' : 'en';
}

import { LANGUAGE } from './i18n.js';

const locale = LANGUAGE === 'ru' ? 'ru-RU' : 'en-US';
const integer = new Intl.NumberFormat(locale, { maximumFractionDigits: 0 });
const decimal = new Intl.NumberFormat(locale, { maximumFractionDigits: 2 });
const percent = new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1 });
const dateTime = new Intl.DateTimeFormat(locale, { dateStyle: 'short', timeStyle: 'medium' });

export const formatInteger = (value: number): string => integer.format(value);
export const formatDecimal = (value: number): string => decimal.format(value);
export const formatPercent = (value: number): string => percent.format(value);

/** US dollars: cents for sums, up to six decimals for the small costs of single requests. */
export function formatUsd(value: number): string {
  const digits = value !== 0 && Math.abs(value) < 0.01 ? 6 : 2;
  return `$${value.toLocaleString(locale, { minimumFractionDigits: 2, maximumFractionDigits: digits })}`;
}

export function formatTime(iso: string | null): string {
  return iso === null ? '' : dateTime.format(new Date(iso));
}

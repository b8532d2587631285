/**
 * What a record set contributes to the computation of an import's contributions
 * (`POST /api/v1/contribuciones`, docs/contribuciones.md). Declared beside the record set's fields, so
 * that the computation names no record set and no column of its own: it reads what these say.
 */

/**
 * Which of a record set's records apply to an import of one fraction from one origin on one date,
 * besides its fraction, NICO and country (which every declaration states).
 */
export interface Applicability {
  /** Columns `YYYYMMDD` from and until which the record is in force; empty means open-ended. */
  readonly validity?: readonly [from: string, until: string];
  /** Column telling the direction of trade and the values meaning import; empty means both. */
  readonly direction?: { readonly field: string; readonly importValues: readonly string[] };
}

/** The tariff line itself: general import duty (IGI), VAT rate, description and unit. */
export interface TariffRole {
  readonly kind: 'tariff';
  readonly description: string;
  readonly unit: string;
  /** The duty as written (`10%`, `Ex.`, `AMX (20%+0.36)`, `Prohibida`). */
  readonly rateText: string;
  /** The ad-valorem percent. */
  readonly rate: string;
  /** `S` when the duty is mixed: the percent plus `specificAmount`. */
  readonly mixed: string;
  /** `S` when the duty is specific only: `specificAmount`. */
  readonly specific: string;
  /** US dollars per unit of the tariff unit (UMT). */
  readonly specificAmount: string;
  /** The VAT rate for the interior of the country, when the record gives one. */
  readonly vatRate: string;
}

export type Treatment = 'tlc' | 'aladi' | 'prosec' | 'cupo';

/** A preferential rate of the import duty. */
export interface PreferenceRole {
  readonly kind: 'preference';
  readonly treatment: Treatment;
  /** Anexo 22 apéndice 8 identifier the option declares. */
  readonly identifier: string;
  /** Columns holding the rate, first usable one wins; `percentText` ones hold text such as `5.2%`. */
  readonly rates: readonly { readonly field: string; readonly percentText?: boolean }[];
  /** The rate as written, to name a record that gives no usable rate. */
  readonly rateText: string;
  /** What the request must show to qualify. */
  readonly requires: 'certificado_origen' | 'sector_prosec' | null;
  /** Column the request's `sector_prosec` must equal. */
  readonly sector?: string;
  /** Column naming the agreement or decree. */
  readonly agreement?: string;
  /** The legal basis of the preference, in words. */
  readonly law: string;
}

/** Compensatory (antidumping, countervailing) duties. */
export interface CompensatoryRole {
  readonly kind: 'compensatory';
  readonly percent: string;
  readonly amount: string;
  readonly currency: string;
  readonly exporter: string;
  readonly resolution: string;
}

/** Excise (IEPS). */
export interface ExciseRole {
  readonly kind: 'excise';
  readonly type: string;
  readonly rate: string;
  readonly quota: string;
  readonly unit: string;
  /** Column with the legal basis of the rate. */
  readonly basis: string;
}

/** A requirement to present (permit, regulation, NOM, quota certificate). */
export interface RequirementRole {
  readonly kind: 'requirement';
  /** Columns whose non-empty values, joined, describe it. */
  readonly describe: readonly string[];
  /** Position among the requirements of a line (the contract lists permits, regulations, NOMs, quotas). */
  readonly order: number;
}

export type ContribucionesRole = TariffRole | PreferenceRole | CompensatoryRole | ExciseRole | RequirementRole;

export interface ContribucionesUse extends Applicability {
  readonly roles: readonly ContribucionesRole[];
}

/** Every column a use names, to check a declaration against its fields. */
export function namedFields(use: ContribucionesUse): string[] {
  const names: string[] = [];
  if (use.validity) names.push(...use.validity);
  if (use.direction) names.push(use.direction.field);
  for (const role of use.roles) {
    for (const [key, value] of Object.entries(role)) {
      if (key === 'kind' || key === 'treatment' || key === 'identifier' || key === 'requires' || key === 'law' || key === 'order') continue;
      if (typeof value === 'string') names.push(value);
      if (Array.isArray(value)) for (const v of value as unknown[]) names.push(typeof v === 'string' ? v : (v as { field: string }).field);
    }
  }
  return names;
}

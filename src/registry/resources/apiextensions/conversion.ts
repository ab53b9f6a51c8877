/**
 * `spec.conversion` of a CRD: strategy None, or Webhook with where the webhook is (url or service), its CA
 * bundle and the ConversionReview versions it understands. The reference accepts an unparsable CA bundle
 * until the CRD is established (then only when it was already unparsable), so that check is separate.
 */
import { X509Certificate } from 'node:crypto';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { isDNS1035Label, required, validateClientConfig } from '../admissionregistration/rules.js';
import { FieldReader, type Rec } from '../events/fields.js';
import { NONE_CONVERTER, WEBHOOK_CONVERTER } from './defaults.js';

/** ConversionReview versions this server can send. */
export const CONVERSION_REVIEW_VERSIONS = ['v1', 'v1beta1'];
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

function reviewVersionErrors(versions: string[], path: string): FieldError[] {
  if (versions.length === 0) return [required(path)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(fieldError.invalid(`${path}[${i}]`, v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const msg of isDNS1035Label(v)) errs.push(fieldError.invalid(`${path}[${i}]`, v, msg));
  });
  if (!versions.some((v) => CONVERSION_REVIEW_VERSIONS.includes(v))) {
    errs.push(fieldError.invalid(path, versions, `must include at least one of ${CONVERSION_REVIEW_VERSIONS.join(', ')}`));
  }
  return errs;
}

export function validateConversion(r: FieldReader, spec: Rec, path: string): FieldError[] {
  const conversion = r.obj(spec, 'conversion', path);
  if (!conversion) return [];
  const errs: FieldError[] = [];
  const strategy = r.str(conversion, 'strategy', `${path}.strategy`);
  if (strategy === '') errs.push(required(`${path}.strategy`));
  else if (strategy !== NONE_CONVERTER && strategy !== WEBHOOK_CONVERTER) errs.push(fieldError.notSupported(`${path}.strategy`, strategy, [NONE_CONVERTER, WEBHOOK_CONVERTER]));
  const webhook = r.obj(conversion, 'webhook', `${path}.webhook`);
  const clientConfig = r.obj(webhook, 'clientConfig', `${path}.webhook.clientConfig`);
  const versions = r.strList(webhook, 'conversionReviewVersions', `${path}.webhook.conversionReviewVersions`);
  if (strategy === WEBHOOK_CONVERTER) {
    if (!clientConfig) errs.push(required(`${path}.webhook.clientConfig`, 'required when strategy is set to Webhook'));
    else {
      errs.push(...validateClientConfig(r, webhook as Rec, `${path}.webhook.clientConfig`));
      const ca = r.str(clientConfig, 'caBundle', `${path}.webhook.clientConfig.caBundle`);
      if (!BASE64.test(ca)) errs.push(fieldError.invalid(`${path}.webhook.clientConfig.caBundle`, ca, 'must be base64-encoded'));
    }
    errs.push(...reviewVersionErrors(versions, `${path}.webhook.conversionReviewVersions`));
  } else if (strategy === NONE_CONVERTER) {
    if (clientConfig) errs.push(fieldError.forbidden(`${path}.webhook.clientConfig`, 'should not be set when strategy is not set to Webhook'));
    if (versions.length > 0) errs.push(fieldError.forbidden(`${path}.webhook.conversionReviewVersions`, 'should not be set when strategy is not set to Webhook'));
  }
  return errs;
}

/** The webhook's base64 CA bundle, '' when there is none. */
export function caBundleOf(spec: unknown): string {
  const s = spec as { conversion?: { webhook?: { clientConfig?: { caBundle?: unknown } } } } | undefined;
  const ca = s?.conversion?.webhook?.clientConfig?.caBundle;
  return typeof ca === 'string' ? ca : '';
}

/** Why a base64 CA bundle holds no usable PEM certificate, or undefined when it does. */
export function caBundleProblem(caBase64: string): string | undefined {
  const pem = Buffer.from(caBase64, 'base64').toString('utf8');
  const blocks = pem.match(PEM_CERT) ?? [];
  if (blocks.length === 0) return 'data does not contain any valid RSA or ECDSA certificates';
  for (const block of blocks) {
    try {
      new X509Certificate(block);
    } catch (e) {
      return `a certificate does not parse: ${(e as Error).message}`;
    }
  }
  return undefined;
}

/**
 * PKCS#10 certificate signing requests (RFC 2986): the node agent writes one to ask for its client
 * certificate (a subject of common name and organizations, no extensions); the seed reads one to
 * decide whether to approve it (who it names, whether it asks for more than a subject, and whether
 * it is signed by the key it carries). Keys and signatures are Node's crypto; the DER is der.ts.
 */
import { createPublicKey, type KeyObject, sign, verify } from 'node:crypto';
import {
  bitString,
  children,
  contextTag,
  DerError,
  decodeObjectIdentifier,
  decodeString,
  type Element,
  objectIdentifier,
  readOnly,
  sequence,
  setOf,
  smallInteger,
  TAG,
  tlv,
  utf8String,
} from './der.js';

export const OID = {
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  ecPublicKey: '1.2.840.10045.2.1',
  rsaEncryption: '1.2.840.113549.1.1.1',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  ecdsaWithSha384: '1.2.840.10045.4.3.3',
  sha256WithRsa: '1.2.840.113549.1.1.11',
  extensionRequest: '1.2.840.113549.1.9.14',
  subjectAltName: '2.5.29.17',
} as const;

/** The hash each supported signature algorithm uses. */
const SIGNATURE_HASH: Readonly<Record<string, string>> = {
  [OID.ecdsaWithSha256]: 'sha256',
  [OID.ecdsaWithSha384]: 'sha384',
  [OID.sha256WithRsa]: 'sha256',
};

export interface CsrSubject {
  readonly commonName: string;
  readonly organizations: readonly string[];
}

function attributeTypeAndValue(oid: string, value: string): Buffer {
  return setOf(sequence(objectIdentifier(oid), utf8String(value)));
}

/** An X.501 Name as Go's crypto/x509 orders it: organizations first, then the common name. */
function encodeName(subject: CsrSubject): Buffer {
  return sequence(
    ...subject.organizations.map((o) => attributeTypeAndValue(OID.organization, o)),
    attributeTypeAndValue(OID.commonName, subject.commonName),
  );
}

function signatureAlgorithm(privateKey: KeyObject): { oid: string; identifier: Buffer } {
  if (privateKey.asymmetricKeyType === 'ec')
    return { oid: OID.ecdsaWithSha256, identifier: sequence(objectIdentifier(OID.ecdsaWithSha256)) };
  if (privateKey.asymmetricKeyType === 'rsa')
    return {
      oid: OID.sha256WithRsa,
      identifier: sequence(objectIdentifier(OID.sha256WithRsa), tlv(TAG.null, Buffer.alloc(0))),
    };
  throw new Error(`keys of type ${privateKey.asymmetricKeyType} are not supported for requests`);
}

/** The DER of a request for `subject`, signed with `privateKey` (EC or RSA, SHA-256). */
export function createCertificationRequest(
  subject: CsrSubject,
  keys: { readonly publicKey: KeyObject; readonly privateKey: KeyObject },
): Buffer {
  const spki = keys.publicKey.export({ type: 'spki', format: 'der' });
  const info = sequence(smallInteger(0), encodeName(subject), spki, tlv(contextTag(0), Buffer.alloc(0)));
  const algorithm = signatureAlgorithm(keys.privateKey);
  const signature = sign(SIGNATURE_HASH[algorithm.oid]!, info, keys.privateKey);
  return sequence(info, algorithm.identifier, bitString(signature));
}

export interface ParsedCertificationRequest {
  readonly subject: {
    readonly commonName: string | undefined;
    readonly organizations: readonly string[];
    /** Object identifiers of subject attributes other than CN and O. */
    readonly others: readonly string[];
  };
  /** `ec`, `rsa`, ... (Node's asymmetricKeyType). */
  readonly keyType: string | undefined;
  /** The extensions the request asks for, by object identifier (e.g. subjectAltName). */
  readonly extensions: readonly string[];
  /** Object identifiers of request attributes other than the extension request. */
  readonly attributes: readonly string[];
  /** Whether the request is signed by the private key of the public key it carries. */
  readonly signatureValid: boolean;
}

function parseName(name: Element): ParsedCertificationRequest['subject'] {
  let commonName: string | undefined;
  const organizations: string[] = [];
  const others: string[] = [];
  for (const rdn of children(name.content)) {
    if (rdn.tag !== TAG.set) throw new DerError('name: expected a SET');
    for (const atv of children(rdn.content)) {
      const [type, value] = children(atv.content);
      if (!type || !value) throw new DerError('name: attribute without type or value');
      const oid = decodeObjectIdentifier(type);
      if (oid === OID.commonName) {
        if (commonName !== undefined) others.push(oid);
        else commonName = decodeString(value);
      } else if (oid === OID.organization) organizations.push(decodeString(value));
      else others.push(oid);
    }
  }
  return { commonName, organizations, others };
}

function parseAttributes(attributes: Element | undefined): { extensions: string[]; attributes: string[] } {
  const extensions: string[] = [];
  const others: string[] = [];
  if (!attributes) return { extensions, attributes: others };
  if (attributes.tag !== contextTag(0)) throw new DerError('request info: expected attributes [0]');
  for (const attribute of children(attributes.content)) {
    const [type, values] = children(attribute.content);
    if (!type || !values) throw new DerError('attribute without type or values');
    const oid = decodeObjectIdentifier(type);
    if (oid !== OID.extensionRequest) {
      others.push(oid);
      continue;
    }
    for (const list of children(values.content))
      for (const extension of children(list.content)) {
        const [extensionId] = children(extension.content);
        if (!extensionId) throw new DerError('extension without identifier');
        extensions.push(decodeObjectIdentifier(extensionId));
      }
  }
  return { extensions, attributes: others };
}

/** Reads a DER request; malformed input throws a DerError. */
export function parseCertificationRequest(der: Buffer): ParsedCertificationRequest {
  const request = readOnly(der, TAG.sequence, 'certification request');
  const [info, algorithm, signature] = children(request.content);
  if (!info || !algorithm || !signature || signature.tag !== TAG.bitString)
    throw new DerError('certification request: expected info, algorithm and signature');
  const [version, name, spki, attributes] = children(info.content);
  if (!version || version.tag !== TAG.integer || !name || !spki)
    throw new DerError('request info: expected version, subject and public key');
  let publicKey: KeyObject | undefined;
  try {
    publicKey = createPublicKey({ key: spki.raw, format: 'der', type: 'spki' });
  } catch {
    publicKey = undefined;
  }
  const [algorithmId] = children(algorithm.content);
  const hash = algorithmId ? SIGNATURE_HASH[decodeObjectIdentifier(algorithmId)] : undefined;
  let signatureValid = false;
  if (publicKey && hash && signature.content[0] === 0) {
    try {
      signatureValid = verify(hash, info.raw, publicKey, signature.content.subarray(1));
    } catch {
      signatureValid = false;
    }
  }
  return {
    subject: parseName(name),
    keyType: publicKey?.asymmetricKeyType,
    ...parseAttributes(attributes),
    signatureValid,
  };
}

/**
 * SEPA credit-transfer files: ISO 20022 `pain.001.001.09` as the EPC's SEPA Credit Transfer
 * guidelines restrict it, one payment (the operator's account, one execution date) of any number
 * of transfers. Every text is written in the EPC's basic Latin set, within its element's length,
 * so the bank neither refuses the file nor garbles a name.
 */
import { formatEuros } from '../kit/fees';

export const PAIN_001_NAMESPACE = 'urn:iso:std:iso:20022:tech:xsd:pain.001.001.09';

/** The rulebook's lengths: names 70 (the schema's 140 is cut to 70 for SEPA), remittance 140, references 35. */
export const SEPA_LENGTHS = { name: 70, remittance: 140, reference: 35 } as const;

/** What Unicode's decomposition does not reduce to a basic Latin letter, as German and Nordic banks write it. */
const TRANSLITERATIONS: Record<string, string> = {
  ä: 'ae',
  ö: 'oe',
  ü: 'ue',
  Ä: 'Ae',
  Ö: 'Oe',
  Ü: 'Ue',
  ß: 'ss',
  ẞ: 'SS',
  æ: 'ae',
  Æ: 'AE',
  œ: 'oe',
  Œ: 'OE',
  ø: 'o',
  Ø: 'O',
  ł: 'l',
  Ł: 'L',
  đ: 'd',
  Đ: 'D',
  ð: 'd',
  Ð: 'D',
  þ: 'th',
  Þ: 'Th',
  ı: 'i',
  '&': '+',
  _: '-',
  '–': '-',
  '—': '-',
  '‘': "'",
  '’': "'",
  '"': "'",
  '“': "'",
  '”': "'",
  '„': "'",
};

/** Everything outside the set a-z A-Z 0-9 / - ? : ( ) . , ' + and space. */
const OUTSIDE_SEPA_SET = /[^A-Za-z0-9/\-?:().,'+ ]/g;

/**
 * `text` in the SEPA character set, at most `maxLength` long: letters transliterated (ä → ae,
 * é → e), anything else a space, spaces collapsed. Never empty, as every text element needs a
 * character: a text of which nothing is left reads `?`.
 */
export function sepaText(text: string, maxLength: number): string {
  const latin = Array.from(text.normalize('NFC'), (char) => TRANSLITERATIONS[char] ?? char)
    .join('')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(OUTSIDE_SEPA_SET, ' ')
    .replace(/ {2,}/g, ' ')
    .trim();
  return latin.slice(0, maxLength).trimEnd() || '?';
}

export interface CreditTransfer {
  /** Goes to the creditor unchanged; written in the SEPA set (`_` as `-`). */
  endToEndId: string;
  /** Cents, positive. */
  amount: number;
  creditorName: string;
  creditorIban: string;
  remittance: string;
}

export interface CreditTransferFile {
  messageId: string;
  createdAt: Date;
  /** `YYYY-MM-DD`. */
  executionDate: string;
  debtor: { name: string; iban: string; bic: string };
  transfers: readonly CreditTransfer[];
}

/** An element with its text or its child elements; the texts hold no markup character (see sepaText). */
type XmlElement = [name: string, content: string | XmlElement[], attributes?: string];

function xml([name, content, attributes]: XmlElement, indent: string): string {
  const open = attributes ? `${name} ${attributes}` : name;
  if (typeof content === 'string') return `${indent}<${open}>${content}</${name}>\n`;
  return `${indent}<${open}>\n${content.map((child) => xml(child, `${indent}  `)).join('')}${indent}</${name}>\n`;
}

/** The file's text: the group header, one payment information block, a transaction per transfer. */
export function creditTransferDocument(file: CreditTransferFile): string {
  const reference = (text: string) => sepaText(text, SEPA_LENGTHS.reference);
  const name = (text: string) => sepaText(text, SEPA_LENGTHS.name);
  const count = String(file.transfers.length);
  const controlSum = formatEuros(file.transfers.reduce((sum, transfer) => sum + transfer.amount, 0));
  const transactions = file.transfers.map(
    (transfer): XmlElement => [
      'CdtTrfTxInf',
      [
        ['PmtId', [['EndToEndId', reference(transfer.endToEndId)]]],
        ['Amt', [['InstdAmt', formatEuros(transfer.amount), 'Ccy="EUR"']]],
        ['Cdtr', [['Nm', name(transfer.creditorName)]]],
        ['CdtrAcct', [['Id', [['IBAN', transfer.creditorIban]]]]],
        ['RmtInf', [['Ustrd', sepaText(transfer.remittance, SEPA_LENGTHS.remittance)]]],
      ],
    ],
  );
  const initiation: XmlElement = [
    'CstmrCdtTrfInitn',
    [
      [
        'GrpHdr',
        [
          ['MsgId', reference(file.messageId)],
          // Whole seconds in UTC, as banks' portals show it.
          ['CreDtTm', file.createdAt.toISOString().replace(/\.\d{3}Z$/, 'Z')],
          ['NbOfTxs', count],
          ['CtrlSum', controlSum],
          ['InitgPty', [['Nm', name(file.debtor.name)]]],
        ],
      ],
      [
        'PmtInf',
        [
          ['PmtInfId', reference(file.messageId)],
          ['PmtMtd', 'TRF'],
          ['NbOfTxs', count],
          ['CtrlSum', controlSum],
          ['PmtTpInf', [['SvcLvl', [['Cd', 'SEPA']]]]],
          ['ReqdExctnDt', [['Dt', file.executionDate]]],
          ['Dbtr', [['Nm', name(file.debtor.name)]]],
          ['DbtrAcct', [['Id', [['IBAN', file.debtor.iban]]]]],
          ['DbtrAgt', [['FinInstnId', [['BICFI', file.debtor.bic]]]]],
          ['ChrgBr', 'SLEV'],
          ...transactions,
        ],
      ],
    ],
  ];
  return `<?xml version="1.0" encoding="UTF-8"?>\n${xml(['Document', [initiation], `xmlns="${PAIN_001_NAMESPACE}"`], '')}`;
}

import { Account } from '../modules/accounts/account.entity';
import { ApiToken } from '../modules/accounts/api-token.entity';
import { LedgerEntry } from '../modules/accounts/ledger-entry.entity';
import { PhoneNumber } from '../modules/accounts/phone-number.entity';
import { Assistant } from '../modules/assistants/assistant.entity';
import { Call } from '../modules/calls/call.entity';
import { Campaign } from '../modules/campaigns/campaign.entity';
import { Language } from '../modules/catalog/language.entity';
import { Model } from '../modules/catalog/model.entity';
import { Voice } from '../modules/catalog/voice.entity';
import { Sms } from '../modules/sms/sms.entity';
import { Tool } from '../modules/tools/tool.entity';
import { KnowledgeBase } from '../modules/knowledge/knowledge-base.entity';
import { KnowledgeDocument } from '../modules/knowledge/knowledge-document.entity';
import { Lead } from '../modules/leads/lead.entity';
import { SecondaryContact } from '../modules/leads/secondary-contact.entity';

export const entities = [Account, ApiToken, PhoneNumber, LedgerEntry, Campaign, Lead, SecondaryContact, Language, Model, Voice, Tool, KnowledgeBase, KnowledgeDocument, Assistant, Call, Sms];

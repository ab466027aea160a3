// The contacts module's public entry: what other modules, the gateway and the wiring may use of it.
export { ContactRepairRepo } from './contact-repair.repo.js';
export { ContactRepairService, type RepairReport } from './contact-repair.service.js';
export { contactKey, ContactsRepo } from './contacts.repo.js';
export { normalizeContact, type PhoneDefaultCountry, providerPhoneValue } from './normalize.js';

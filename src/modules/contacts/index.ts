// The contacts module's public entry: what other modules, the gateway and the wiring may use of it.
export { ContactRepairRepo } from './contact-repair.repo.js';
export { ContactRepairService, type RepairReport } from './contact-repair.service.js';
export { contactKey, ContactsRepo } from './contacts.repo.js';
export { normalizeContact, type PhoneDefaultCountry, providerPhoneValue } from './normalize.js';
export { CustomerAttributeLookup } from './customer-attribute-lookup.js';
export { CustomerAttributesRepo, CustomerAttributesService } from './customer-attributes.js';
export { CUSTOMER_NOTE, CustomerNotesRepo, CustomerNotesService } from './customer-notes.js';
export { CustomersRepo } from './customers.repo.js';
export { customersRoutes } from './customers.routes.js';
export { CUSTOMER_MERGE, CUSTOMER_UPDATE, CustomerSchema } from './customers.schemas.js';
export { CustomersService } from './customers.service.js';
export { customerCsvRoutes } from './customer-csv.routes.js';
export { CustomerCsvService } from './customer-csv.service.js';
export { CustomerImportRepo } from './customer-import.repo.js';

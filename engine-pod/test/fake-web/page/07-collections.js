// The rest of WAWebCollections the library reads: contacts (Contact, Blocklist, BusinessProfile,
// ProfilePicThumb), group metadata, labels, channels (newsletters), statuses, reactions and
// features. Contacts are made on first look-up, as WhatsApp Web makes a contact for any id.
(() => {
  const { Model, Collection, widOf, backend, collections } = window.FakeWeb;

  class ContactModel extends Model {
    constructor(attributes) {
      super({ isBusiness: false, isEnterprise: false, isContactBlocked: false, pushname: undefined, name: undefined, ...attributes });
      if (typeof this.id === 'string') this.id = widOf(this.id);
    }
    get formattedName() {
      return this.name ?? this.pushname ?? `+${this.id?.user}`;
    }
  }
  class LookupCollection extends Collection {
    async find(id) {
      return this.get(id) ?? this.add({ id: widOf(id) })[0];
    }
  }
  class GroupMetadataCollection extends Collection {
    async update(id) {
      return this.get(id);
    }
  }

  const Contact = new LookupCollection(ContactModel);
  const Blocklist = new Collection();
  const BusinessProfile = new LookupCollection();
  const ProfilePicThumb = new LookupCollection();
  const GroupMetadata = new GroupMetadataCollection();
  const Label = new Collection();
  const NewsletterCollection = new Collection();
  const NewsletterMetadata = new GroupMetadataCollection();
  const Status = new Collection();
  const Reactions = new Collection();
  const Features = new Model({ features: {} });

  Object.assign(collections, {
    Contact,
    Blocklist,
    BusinessProfile,
    ProfilePicThumb,
    GroupMetadata,
    WAWebGroupMetadataCollection: GroupMetadata,
    Label,
    WAWebNewsletterCollection: NewsletterCollection,
    NewsletterMetadataCollection: NewsletterMetadata,
    WAWebNewsletterMetadataCollection: NewsletterMetadata,
    Status,
    Reactions,
    Features,
  });
  // The phone's address book: contacts the test gives the account.
  backend.on('contacts', ({ contacts }) => {
    for (const contact of contacts) {
      const existing = Contact.get(contact.id);
      // A known contact keeps its Wid: only its other fields change.
      const { id: _id, ...fields } = contact;
      if (existing) existing.set(fields);
      else Contact.add(contact);
    }
  });
  window.FakeWeb.ContactModel = ContactModel;
})();

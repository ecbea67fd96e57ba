/**
 * The public contract of customers: created or matched by email at payment, read and
 * deleted by id. Response schemas are explicit allowlists.
 */
import { z } from 'zod';
import { EXAMPLE } from '../kit/examples';
import { createdRangeFields, emailFilter, listSchema, pageFields } from '../kit/list';

export const customerIdParam = z
  .string()
  .min(1)
  .describe('The customer id, `cus_…`.')
  .meta({ examples: [EXAMPLE.customerId] });

export const retrieveCustomerInput = z.strictObject({ id: customerIdParam });
export const deleteCustomerInput = z.strictObject({ id: customerIdParam });

export const customerSchema = z
  .object({
    id: z.string(),
    object: z.literal('customer'),
    livemode: z.boolean(),
    email: z.string().describe('Lower-cased; customers are matched by email within a store and mode.'),
    name: z.string().nullable(),
    created: z.number().int(),
  })
  .meta({
    id: 'Customer',
    examples: [{ id: EXAMPLE.customerId, object: 'customer', livemode: false, email: EXAMPLE.customerEmail, name: null, created: EXAMPLE.created + 9 }],
  });
export type Customer = z.infer<typeof customerSchema>;

export const deletedCustomerSchema = z
  .object({ id: z.string(), object: z.literal('customer'), deleted: z.literal(true), livemode: z.boolean() })
  .meta({ id: 'DeletedCustomer', examples: [{ id: EXAMPLE.customerId, object: 'customer', deleted: true, livemode: false }] });
export type DeletedCustomer = z.infer<typeof deletedCustomerSchema>;

/** The list query; unknown parameters are refused. */
export const listCustomersInput = z.strictObject({
  ...pageFields,
  email: emailFilter('Only the customer with this e-mail (case-insensitive).'),
  ...createdRangeFields,
});
export type ListCustomersQuery = z.infer<typeof listCustomersInput>;

/** The list's filters without the page fields: what an export of every matching customer takes. */
export const customerListFilters = listCustomersInput.omit({ limit: true, starting_after: true });
export type CustomerListFilters = z.infer<typeof customerListFilters>;

export const customerListSchema = listSchema(customerSchema, '/api/v1/customers', 'CustomerList');
export type CustomerList = z.infer<typeof customerListSchema>;

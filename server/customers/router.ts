import { createRouter, secretKeyProcedure } from '../trpc';
import { customerListSchema, customerSchema, deleteCustomerInput, deletedCustomerSchema, listCustomersInput, retrieveCustomerInput } from './schemas';
import { deleteCustomer, getCustomer, listCustomers } from './service';

const TAGS = ['Customers'];

export const customersRouter = createRouter({
  // GET /api/v1/customers: this store's customers in this environment, newest first.
  list: secretKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/customers', tags: TAGS, summary: 'List customers', protect: true }, errors: ['resource_missing'] })
    .input(listCustomersInput)
    .output(customerListSchema)
    .query(({ ctx, input }) => listCustomers(ctx.db, ctx.subject, input)),

  // GET /api/v1/customers/{id}: a customer of this store and environment.
  retrieve: secretKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/customers/{id}', tags: TAGS, summary: 'Retrieve a customer', protect: true } })
    .input(retrieveCustomerInput)
    .output(customerSchema)
    .query(({ ctx, input }) => getCustomer(ctx.db, ctx.subject, input.id)),

  // DELETE /api/v1/customers/{id}: delete a customer; it then answers 404 like an unknown id.
  delete: secretKeyProcedure
    .meta({ openapi: { method: 'DELETE', path: '/customers/{id}', tags: TAGS, summary: 'Delete a customer', protect: true } })
    .input(deleteCustomerInput)
    .output(deletedCustomerSchema)
    .mutation(({ ctx, input }) => deleteCustomer(ctx, ctx.subject, input.id)),
});

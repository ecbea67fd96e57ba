import { createRouter, secretKeyProcedure } from '../trpc';
import { customerSchema, deleteCustomerInput, deletedCustomerSchema, retrieveCustomerInput } from './schemas';
import { deleteCustomer, getCustomer } from './service';

const TAGS = ['Customers'];

export const customersRouter = createRouter({
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

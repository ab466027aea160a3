/**
 * The words of the benchmark's messages and contact names (bench/seed.ts). Messages are phrases of
 * VOCABULARY drawn with a Zipf-like skew (the first words most often), so full-text search meets the
 * selectivity of real conversations: the stop words at the top (which the `portuguese` configuration
 * drops) are in most messages, a customer-service word such as `pedido` in a few percent, the last
 * ones in about one percent. UNCOMMON and RARE words never appear in phrases; they are appended to a
 * fixed share of messages, so a search for them has a known number of matches.
 */
/** Words separated by white space; lines starting with `//` are comments. */
const words = (text: string): readonly string[] =>
  text
    .split('\n')
    .filter((l) => !l.trim().startsWith('//'))
    .join(' ')
    .split(/\s+/)
    .filter(Boolean);

export const VOCABULARY: readonly string[] = words(`
  // Stop words first: the most frequent, dropped by the text search configuration.
  de a o que e do da em um para é com não uma os no se
  na por mais as dos como mas foi ao das tem seu sua ou ser
  quando muito já está eu também só pelo pela até isso depois sem
  mesmo me esse você essa meu minha nem este vocês lhe estou
  // Conversation.
  olá oi bom dia boa tarde noite obrigado obrigada favor pedido
  preciso ajuda quero gostaria saber certo ok sim claro aguarde momento
  verificar verificando hoje ainda agora amanhã ontem semana dias mês
  pagamento boleto segunda via fatura cartão crédito débito pix entrega
  produto prazo troca devolução cancelamento cancelar reembolso conta senha
  acesso cadastro endereço número protocolo atendimento atendente problema
  dúvida informação valor desconto cobrança parcela parcelas vencimento nota
  fiscal plano internet sinal instalação técnico visita agendamento horário
  loja site aplicativo email mensagem ligação telefone celular chip linha
  recarga saldo extrato transferência depósito juros multa contrato assinatura
  renovação promoção oferta frete rastreio código correios transportadora
  atraso atrasado chegou recebi enviado enviei comprei paguei confirmar
  alterar atualizar mudar resolver aguardando retorno resposta urgente entendi
  perfeito instante sistema erro falha funcionando funciona tela login
  bloqueado bloqueio liberado liberação aprovado recusado análise documento
  documentos comprovante foto anexo cpf nome titular dados pessoais ações
  fiscais papéis notas pedidos pagamentos boletos faturas cartões entregas
  produtos trocas valores cobranças contas planos visitas mensagens ligações
  serviço serviços empresa cliente clientes compra compras venda garantia
  defeito quebrado danificado errado faltando item itens tamanho cor modelo
  estoque disponível indisponível reserva retirada balcão unidade filial
  cidade bairro rua cep complemento apartamento portaria vizinho motoboy
  coleta postagem etiqueta caixa embalagem lacre aberta fechada novo nova
  usado antigo atual próximo último primeira vez sempre nunca rápido
  demora demorando espera fila reclamação sugestão elogio avaliação
  ótimo excelente péssimo ruim melhor pior igual diferente correto certeza
  possível impossível consigo consegui tentei tentando aparece apareceu mostra
  diz falou disse informou explicou solicitação solicitei pedi abri chamado
  ticket suporte financeiro comercial vendas setor gerente supervisor ouvir
  ligar retornar responder enviar mandar receber pagar comprar trocar
  devolver cancelei cancelado estornado creditado debitado cobrado duplicado
  duas vezes dois três reais centavos mil metade total parcial integral
`);

/** Appended to one message in 500 (one of these in turn): about 1,000 messages each in 10,000,000. */
export const UNCOMMON: readonly string[] = words(`
  portabilidade ouvidoria procon contestação inadimplência renegociação biometria
  chargeback franquia mensalidade carência vistoria sinistro cashback voucher
  assinante fidelidade roteador modem tarifa
`);

/** Appended to one message in 20,000: about 50 messages each in 10,000,000. */
export const RARE: readonly string[] = words(`
  paralelepípedo otorrinolaringologista xilogravura quimono berimbau jabuticaba
  caleidoscópio anticonstitucional ornitorrinco pindamonhangaba
`);

export const FIRST_NAMES: readonly string[] = words(`
  Maria José Ana João Antônio Francisca Carlos Paulo Adriana Pedro
  Juliana Lucas Márcia Luiz Fernanda Marcos Patrícia Luis Aline Gabriel
  Sandra Rafael Camila Daniel Amanda Marcelo Bruna Bruno Jéssica Eduardo
  Letícia Felipe Júlia Raimundo Luciana Rodrigo Vanessa Manoel Mariana
  Mateus Gabriela André Vera Fernando Vitória Fábio Larissa Leonardo Cláudia
  Gustavo Beatriz Guilherme Luana Leandro Rita Tiago Sônia Anderson Renata
  Ricardo Eliane Márcio Josefa Jorge Simone Sebastião Natália Alexandre
  Conceição Roberto Raquel Edson Débora Diego Tatiane Vitor Carla Sérgio
  Cristiane Cláudio Priscila Matheus Rosângela Thiago Aparecida Geraldo Isabela
  Adriano Michele Luciano Talita Júlio Kelly Renato Lúcia Alex Sabrina
  Vinícius Heloísa Rogério
`);

export const SURNAMES: readonly string[] = words(`
  Silva Santos Oliveira Souza Rodrigues Ferreira Alves Pereira Lima Gomes
  Costa Ribeiro Martins Carvalho Almeida Lopes Soares Fernandes Vieira
  Barbosa Rocha Dias Nascimento Andrade Moreira Nunes Marques Machado
  Mendes Freitas Cardoso Ramos Gonçalves Santana Teixeira Araújo Pinto
  Monteiro Moura Correia Cavalcanti Campos Batista Castro Melo Reis Borges
  Aragão Brandão Falcão Assunção Conceição Magalhães Guimarães Peixoto Tavares
  Pires Farias Bezerra Rezende Sampaio Queiroz Coelho Cunha Siqueira Xavier
  Medeiros Morais Paiva Leite Fonseca Bastos Macedo Brito Amaral Duarte
  Viana Miranda Figueiredo Barros Azevedo Toledo Prado Matos Salgado Nogueira
  Rangel Sales Valente Bittencourt Lacerda Quintana Vasconcelos Xerez Zanetti
  Fontes Guerra Lobo Padilha Esteves
`);
